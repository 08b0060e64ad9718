package io.connectrs.host.isolation;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parent of every {@link PluginLoader} (Kafka Connect's {@code DelegatingClassLoader}): a
 * class name that some discovered plugin provides is loaded by that plugin's loader (its latest
 * version), everything else by the host's own class loader.
 */
public class DelegatingLoader extends URLClassLoader {
    static {
        ClassLoader.registerAsParallelCapable();
    }

    /** One implementation of a plugin class name. */
    public static final class Candidate {
        /** The plugin's version ({@code "undefined"} when it has none). */
        public final String version;
        /** The loader that defines it. */
        public final ClassLoader loader;

        Candidate(String version, ClassLoader loader) {
            this.version = version;
            this.loader = loader;
        }
    }

    private final Map<String, List<Candidate>> plugins = new ConcurrentHashMap<>();

    /** @param parent the host's class loader (connect-api, kafka-clients, ...) */
    public DelegatingLoader(ClassLoader parent) {
        super(new URL[0], parent);
    }

    /** Records that {@code loader} provides {@code className} in {@code version}. */
    public void install(String className, String version, ClassLoader loader) {
        List<Candidate> list = plugins.computeIfAbsent(className, k -> new ArrayList<>());
        synchronized (list) {
            for (Candidate c : list) {
                if (c.loader == loader && c.version.equals(version)) {
                    return;
                }
            }
            list.add(new Candidate(version, loader));
            // stable: equal versions keep their discovery order, the later one wins as "latest"
            list.sort(Comparator.comparing((Candidate c) -> c.version, Versions::compare));
        }
    }

    /**
     * The loader of {@code className} in {@code version} ({@code null} or {@code "latest"}: the
     * latest version); {@code null} when no plugin provides it in that version.
     */
    public ClassLoader pluginLoader(String className, String version) {
        List<Candidate> list = plugins.get(className);
        if (list == null) {
            return null;
        }
        synchronized (list) {
            if (list.isEmpty()) {
                return null;
            }
            if (version == null || version.equals("latest")) {
                return list.get(list.size() - 1).loader;
            }
            for (int i = list.size() - 1; i >= 0; i--) {
                if (list.get(i).version.equals(version)) {
                    return list.get(i).loader;
                }
            }
            return null;
        }
    }

    /** The versions available for {@code className}, oldest first. */
    public List<String> versions(String className) {
        List<String> out = new ArrayList<>();
        List<Candidate> list = plugins.get(className);
        if (list != null) {
            synchronized (list) {
                list.forEach(c -> out.add(c.version));
            }
        }
        return out;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        ClassLoader loader = pluginLoader(name, null);
        if (loader != null && loader != this) {
            Class<?> klass = loader.loadClass(name);
            if (resolve) {
                resolveClass(klass);
            }
            return klass;
        }
        return super.loadClass(name, resolve);
    }
}
