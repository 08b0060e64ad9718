package io.connectrs.host.isolation;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One plugin location's class loader (Kafka Connect's {@code PluginClassLoader}): names that
 * {@link Isolation#shouldLoadInIsolation} accepts are looked up in the location's own URLs first
 * (child-first), all others — and isolated names it does not have — come from the parent.
 * Resources: {@link #getResource} child-first, {@link #getResources} local then parent.
 */
public class PluginLoader extends URLClassLoader {
    static {
        ClassLoader.registerAsParallelCapable();
    }

    private final String location;

    /**
     * @param location the location's path as the scan request names it
     * @param urls the location's archives or class directory
     * @param parent the delegating loader (or the host's class loader)
     */
    public PluginLoader(String location, URL[] urls, ClassLoader parent) {
        super(urls, parent);
        this.location = location;
    }

    /** The location's path as the scan request names it. */
    public String location() {
        return location;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> klass = findLoadedClass(name);
            if (klass == null && Isolation.shouldLoadInIsolation(name)) {
                try {
                    klass = findClass(name);
                } catch (ClassNotFoundException e) {
                    // not in this location: the parent's
                }
            }
            if (klass == null) {
                klass = super.loadClass(name, false);
            }
            if (resolve) {
                resolveClass(klass);
            }
            return klass;
        }
    }

    @Override
    public URL getResource(String name) {
        URL url = findResource(name);
        return url != null ? url : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        Set<URL> all = new LinkedHashSet<>(Collections.list(findResources(name)));
        ClassLoader parent = getParent();
        if (parent != null) {
            all.addAll(Collections.list(parent.getResources(name)));
        }
        List<URL> list = new ArrayList<>(all);
        return Collections.enumeration(list);
    }

    @Override
    public String toString() {
        return "PluginLoader{location=" + location + "}";
    }
}
