package io.connectrs.host.run;

import io.connectrs.host.isolation.DelegatingLoader;
import io.connectrs.host.isolation.PluginLoader;
import io.connectrs.host.scan.ScanService;

import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The class loader a plugin runs in: the loader of its {@code plugin.path} location, one per location
 * for the life of the JVM (Kafka Connect's {@code PluginClassLoader}, child-first). The loader of the
 * last scan is used when it has the class at that location; otherwise one is made from the URLs
 * connect-rs computed for the location. A plugin with no URLs (found on the host's own class path)
 * runs in the host's loader.
 */
final class Loaders {
    private Loaders() {}

    private static final Map<String, ClassLoader> BY_LOCATION = new ConcurrentHashMap<>();

    /** A call into a plugin. */
    interface Call<T> {
        T call() throws Exception;
    }

    /** Runs {@code call} with {@code loader} as the thread context class loader (Kafka's LoaderSwap). */
    static <T> T withContextLoader(ClassLoader loader, Call<T> call) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            return call.call();
        } finally {
            t.setContextClassLoader(saved);
        }
    }

    static ClassLoader loaderFor(String className, String version, String location, List<Object> urls)
            throws MalformedURLException {
        DelegatingLoader scanned = ScanService.delegatingLoader();
        if (scanned != null) {
            ClassLoader l = scanned.pluginLoader(className, version);
            if (l instanceof PluginLoader && ((PluginLoader) l).location().equals(location)) {
                return l;
            }
        }
        ClassLoader host = Loaders.class.getClassLoader();
        if (urls == null || urls.isEmpty() || location == null) {
            return host;
        }
        URL[] jurls = new URL[urls.size()];
        for (int i = 0; i < jurls.length; i++) {
            jurls[i] = Paths.get((String) urls.get(i)).toUri().toURL();
        }
        ClassLoader parent = scanned != null ? scanned : host;
        return BY_LOCATION.computeIfAbsent(location, loc -> new PluginLoader(loc, jurls, parent));
    }
}
