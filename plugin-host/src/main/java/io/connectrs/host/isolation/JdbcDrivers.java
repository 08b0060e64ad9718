package io.connectrs.host.isolation;

import java.sql.Driver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Registers the JDBC drivers a loader offers, as Kafka Connect does for every plugin loader
 * ({@code PluginScanner.loadJdbcDrivers}): instantiating a {@code java.sql.Driver} through
 * {@link ServiceLoader} makes it register itself with {@code DriverManager}. Broken entries are
 * ignored, as in Kafka.
 */
public final class JdbcDrivers {
    private JdbcDrivers() {
    }

    /** Loads the drivers of {@code loader}; returns their class names. */
    public static List<String> load(ClassLoader loader) {
        List<String> names = new ArrayList<>();
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            Iterator<Driver> it = ServiceLoader.load(Driver.class, loader).iterator();
            while (it.hasNext()) {
                names.add(it.next().getClass().getName());
            }
        } catch (Throwable ignored) {
            // Kafka: "Ignoring java.sql.Driver classes listed in resources but not present in
            // class loader's classpath"
        } finally {
            t.setContextClassLoader(saved);
        }
        return names;
    }
}
