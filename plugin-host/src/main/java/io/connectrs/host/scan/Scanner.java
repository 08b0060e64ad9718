package io.connectrs.host.scan;

import io.connectrs.host.isolation.JdbcDrivers;
import org.apache.kafka.connect.components.Versioned;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Plugin discovery as Kafka Connect does it ({@code Plugins.initLoaders}, {@code PluginScanner},
 * {@code ServiceLoaderScanner}, {@code ReflectionScanner}), without ClassGraph: the reflective
 * scan reads the class-file headers of every {@code .class} in a source's URLs, closes the
 * subtype relation inside the source (supertypes outside it resolved with
 * {@code Class.forName(name, false, loader)}), and loads only the candidates. A plugin that
 * cannot be discovered is an entry of {@link Result#errors} (with Kafka's log text); the scan goes
 * on.
 */
public final class Scanner {
    private Scanner() {
    }

    /** Kafka's {@code plugin.discovery} modes. */
    public enum Mode {
        ONLY_SCAN, HYBRID_WARN, HYBRID_FAIL, SERVICE_LOAD;

        boolean serviceLoad() {
            return this != ONLY_SCAN;
        }

        boolean reflectivelyScan() {
            return this != SERVICE_LOAD;
        }

        /** The config value ({@code hybrid_warn}). */
        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** Parses a config value, any case. */
        public static Mode parse(String value) {
            return valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** One source: an isolated location (its own loader) or the class path ({@code location == null}). */
    public static final class Source {
        public final String location;
        public final List<Path> urls;
        public final ClassLoader loader;

        public Source(String location, List<Path> urls, ClassLoader loader) {
            this.location = location;
            this.urls = urls;
            this.loader = loader;
        }

        /** The location as results name it: the path, or {@code classpath}. */
        public String name() {
            return location == null ? "classpath" : location;
        }

        /** The location as Kafka's {@code PluginDesc.location()} prints it (a {@code file:} URL). */
        public String kafkaLocation() {
            if (location == null) {
                return "classpath";
            }
            try {
                return Paths.get(location).toUri().toURL().toString();
            } catch (Exception e) {
                return location;
            }
        }
    }

    /** One discovered plugin. */
    public static final class Desc {
        public final Class<?> klass;
        public final PluginKind kind;
        public final String version;
        public final Source source;
        boolean viaManifest;

        Desc(Class<?> klass, PluginKind kind, String version, Source source) {
            this.klass = klass;
            this.kind = kind;
            this.version = version;
            this.source = source;
        }

        public String className() {
            return klass.getName();
        }

        /** Whether a ServiceLoader manifest lists it. */
        public boolean viaManifest() {
            return viaManifest;
        }

        String key() {
            return System.identityHashCode(klass) + "\u0000" + klass.getName() + "\u0000" + version + "\u0000" + kind;
        }
    }

    /** Something that could not be discovered. */
    public static final class Problem {
        public final String location;
        public final String className;
        public final String message;
        public final Throwable cause;

        Problem(String location, String className, String message, Throwable cause) {
            this.location = location;
            this.className = className;
            this.message = message;
            this.cause = cause;
        }
    }

    /** The merged discovery result. */
    public static final class Result {
        public final List<Desc> plugins = new ArrayList<>();
        public final List<Problem> errors = new ArrayList<>();
        /** In hybrid modes, the plugins no manifest lists; {@code null} otherwise. */
        public List<Desc> missingManifests;
        /** Kafka's hybrid-mode text, {@code null} when it says nothing. */
        public String hybridMessage;
        /** True when {@code hybrid_fail} found plugins without manifests (the worker must not start). */
        public boolean hybridFailed;
    }

    /** Orders descriptors as Kafka's {@code PluginDesc.compareTo} (name, version, type). */
    public static final Comparator<Desc> ORDER = Comparator
            .comparing(Desc::className)
            .thenComparing((Desc d) -> d.version, io.connectrs.host.isolation.Versions::compare)
            .thenComparing(d -> d.kind);

    /** Discovers the plugins of {@code sources} in {@code mode}. */
    public static Result scan(Mode mode, List<Source> sources) {
        Result result = new Result();
        Map<String, Desc> serviceLoaded = new LinkedHashMap<>();
        Map<String, Desc> merged = new LinkedHashMap<>();
        if (mode.serviceLoad()) {
            for (Source source : sources) {
                for (PluginKind kind : PluginKind.values()) {
                    for (Desc d : serviceLoad(kind, source, result.errors)) {
                        d.viaManifest = true;
                        serviceLoaded.putIfAbsent(d.key(), d);
                    }
                }
                JdbcDrivers.load(source.loader);
            }
        }
        if (mode.reflectivelyScan()) {
            for (Source source : sources) {
                for (Desc d : reflectiveScan(source, result.errors)) {
                    merged.putIfAbsent(d.key(), d);
                }
                if (!mode.serviceLoad()) {
                    // ONLY_SCAN: these three types only ever come from manifests
                    for (PluginKind kind : PluginKind.values()) {
                        if (!kind.reflective) {
                            for (Desc d : serviceLoad(kind, source, result.errors)) {
                                d.viaManifest = true;
                                merged.putIfAbsent(d.key(), d);
                            }
                        }
                    }
                }
                JdbcDrivers.load(source.loader);
            }
        }
        for (Map.Entry<String, Desc> e : serviceLoaded.entrySet()) {
            Desc existing = merged.get(e.getKey());
            if (existing != null) {
                existing.viaManifest = true;
            } else {
                merged.put(e.getKey(), e.getValue());
            }
        }
        result.plugins.addAll(merged.values());
        result.plugins.sort(ORDER);
        hybridReport(mode, serviceLoaded, result);
        return result;
    }

    /** Kafka's {@code Plugins.maybeReportHybridDiscoveryIssue}. */
    private static void hybridReport(Mode mode, Map<String, Desc> serviceLoaded, Result result) {
        boolean hybrid = mode == Mode.HYBRID_WARN || mode == Mode.HYBRID_FAIL;
        List<Desc> missing = result.plugins.stream()
                .filter(d -> !serviceLoaded.containsKey(d.key()))
                .collect(Collectors.toList());
        if (hybrid) {
            result.missingManifests = missing;
        }
        if (missing.isEmpty()) {
            if (hybrid) {
                result.hybridMessage = "All plugins have ServiceLoader manifests, consider reconfiguring "
                        + "plugin.discovery=" + Mode.SERVICE_LOAD;
            }
            return;
        }
        String message = String.format(
                "One or more plugins are missing ServiceLoader manifests may not be usable with %s=%s: %s%n"
                        + "Read the documentation at %s for instructions on migrating your plugins "
                        + "to take advantage of the performance improvements of %s mode.",
                "plugin.discovery", Mode.SERVICE_LOAD,
                missing.stream()
                        .map(d -> d.source.kafkaLocation() + "\t" + d.className() + "\t" + d.kind.typeName()
                                + "\t" + d.version)
                        .collect(Collectors.joining("\n", "[\n", "\n]")),
                "https://kafka.apache.org/documentation.html#connect_plugindiscovery",
                Mode.SERVICE_LOAD);
        if (mode == Mode.HYBRID_WARN) {
            result.hybridMessage = message + " To silence this warning, set plugin.discovery="
                    + Mode.ONLY_SCAN + " in the worker config.";
        } else if (mode == Mode.HYBRID_FAIL) {
            result.hybridMessage = message + " To silence this error, set plugin.discovery="
                    + Mode.HYBRID_WARN + " in the worker config.";
            result.hybridFailed = true;
        }
    }

    // ---------------------------------------------------------------- ServiceLoader

    private static List<Desc> serviceLoad(PluginKind kind, Source source, List<Problem> errors) {
        List<Desc> out = new ArrayList<>();
        ClassLoader loader = source.loader;
        try {
            ServiceLoader<?> sl = guarded(kind, source, errors, () -> ServiceLoader.load(kind.superClass, loader));
            Iterator<?> it = guarded(kind, source, errors, sl::iterator);
            while (guarded(kind, source, errors, it::hasNext)) {
                Thread t = Thread.currentThread();
                ClassLoader saved = t.getContextClassLoader();
                t.setContextClassLoader(loader);
                try {
                    Object impl;
                    try {
                        impl = guarded(kind, source, errors, it::next);
                    } catch (ServiceConfigurationError e) {
                        errors.add(new Problem(source.name(), null, "Failed to discover " + kind.simpleName()
                                + " in " + source.name() + reflectiveErrorDescription(e.getCause()), e));
                        continue;
                    }
                    if (impl.getClass().getClassLoader() != loader) {
                        continue; // visible from another loader: excluded to prevent isolated loading
                    }
                    out.add(new Desc(impl.getClass(), kind, versionFor(impl), source));
                } finally {
                    t.setContextClassLoader(saved);
                }
            }
        } catch (ExcessiveErrors e) {
            errors.add(new Problem(source.name(), null, e.getMessage(), e.getCause()));
        }
        return out;
    }

    private static final class ExcessiveErrors extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExcessiveErrors(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Kafka's {@code handleLinkageError}: retries a ServiceLoader step that throws a LinkageError. */
    private static <U> U guarded(PluginKind kind, Source source, List<Problem> errors, Supplier<U> step) {
        LinkageError last = null;
        for (int i = 0; i < 100; i++) {
            try {
                return step.get();
            } catch (LinkageError t) {
                if (last == null || !Objects.equals(last.getClass(), t.getClass())
                        || !Objects.equals(last.getMessage(), t.getMessage())) {
                    errors.add(new Problem(source.name(), null, "Failed to discover " + kind.simpleName()
                            + " in " + source.name() + reflectiveErrorDescription(t.getCause()), t));
                }
                last = t;
            }
        }
        throw new ExcessiveErrors("Received excessive ServiceLoader errors: assuming the runtime ServiceLoader "
                + "implementation cannot skip faulty implementations. Use a different JRE, resolve errors for all "
                + kind.simpleName() + " in " + source.name() + ", or disable service loader scanning.", last);
    }

    // ---------------------------------------------------------------- reflective scan

    private static List<Desc> reflectiveScan(Source source, List<Problem> errors) {
        Map<String, ClassHeader> headers = new LinkedHashMap<>();
        for (Path url : source.urls) {
            readHeaders(url, source, headers, errors);
        }
        Map<String, Class<?>> external = new HashMap<>();
        List<Desc> out = new ArrayList<>();
        List<String> names = new ArrayList<>(headers.keySet());
        names.sort(null);
        for (PluginKind kind : PluginKind.values()) {
            if (!kind.reflective) {
                continue;
            }
            Map<String, Boolean> memo = new HashMap<>();
            for (String name : names) {
                ClassHeader h = headers.get(name);
                if (!h.isPublic() || !h.isStandardClass()) {
                    continue;
                }
                if (!isSubtype(name, kind.superClass, headers, external, memo, source.loader, 0)) {
                    continue;
                }
                Desc d = describe(kind, name, source, errors);
                if (d != null) {
                    out.add(d);
                }
            }
        }
        return out;
    }

    private static boolean isSubtype(String name, Class<?> target, Map<String, ClassHeader> headers,
                                     Map<String, Class<?>> external, Map<String, Boolean> memo,
                                     ClassLoader loader, int depth) {
        if (name == null || depth > 200) {
            return false;
        }
        if (name.equals(target.getName())) {
            return true;
        }
        Boolean known = memo.get(name);
        if (known != null) {
            return known;
        }
        memo.put(name, Boolean.FALSE); // cuts cycles in broken class files
        boolean result;
        ClassHeader h = headers.get(name);
        if (h != null) {
            result = isSubtype(h.superName, target, headers, external, memo, loader, depth + 1);
            for (String i : h.interfaces) {
                result = result || isSubtype(i, target, headers, external, memo, loader, depth + 1);
            }
        } else {
            Class<?> c;
            if (external.containsKey(name)) {
                c = external.get(name);
            } else {
                try {
                    c = Class.forName(name, false, loader);
                } catch (Throwable t) {
                    c = null;
                }
                external.put(name, c);
            }
            result = c != null && target.isAssignableFrom(c);
        }
        memo.put(name, result);
        return result;
    }

    /** Loads a candidate and reads its version as {@code ReflectionScanner.getPluginDesc} does. */
    private static Desc describe(PluginKind kind, String name, Source source, List<Problem> errors) {
        ClassLoader loader = source.loader;
        String simple = name.substring(name.lastIndexOf('.') + 1);
        Class<?> klass;
        try {
            klass = Class.forName(name, false, loader);
        } catch (Throwable t) {
            // ClassGraph's loadClasses(..., ignoreExceptions = true) drops it silently in Kafka;
            // the host reports it so a broken jar is named.
            errors.add(new Problem(source.name(), name, "Failed to discover " + kind.simpleName() + " in "
                    + source.name() + ": Unable to load " + simple + reflectiveErrorDescription(t), t));
            return null;
        }
        int mod = klass.getModifiers();
        if (Modifier.isAbstract(mod) || Modifier.isInterface(mod)) {
            return null;
        }
        if (klass.getClassLoader() != loader || !kind.superClass.isAssignableFrom(klass)) {
            return null;
        }
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        t.setContextClassLoader(loader);
        try {
            Object impl = klass.getDeclaredConstructor().newInstance();
            return new Desc(klass, kind, versionFor(impl), source);
        } catch (ReflectiveOperationException | LinkageError | SecurityException e) {
            errors.add(new Problem(source.name(), name, "Failed to discover " + kind.simpleName() + " in "
                    + source.name() + ": Unable to instantiate " + klass.getSimpleName()
                    + reflectiveErrorDescription(e), e));
            return null;
        } finally {
            t.setContextClassLoader(saved);
        }
    }

    private static void readHeaders(Path url, Source source, Map<String, ClassHeader> headers,
                                     List<Problem> errors) {
        if (Files.isDirectory(url)) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(url)) {
                files = walk.filter(p -> p.toString().endsWith(".class") && Files.isRegularFile(p))
                        .sorted().collect(Collectors.toList());
            } catch (IOException | RuntimeException e) {
                errors.add(new Problem(url.toString(), null, "Failed to scan " + url + " in " + source.name()
                        + ": " + e, e));
                return;
            }
            for (Path f : files) {
                try (InputStream in = Files.newInputStream(f)) {
                    add(ClassHeader.read(in), headers);
                } catch (IOException | RuntimeException e) {
                    // not a class file: ignored, as the JVM would never load it either
                }
            }
            return;
        }
        try (ZipFile zip = new ZipFile(url.toFile())) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                String n = e.getName();
                if (e.isDirectory() || !n.endsWith(".class") || n.startsWith("META-INF/")) {
                    continue;
                }
                try (InputStream in = zip.getInputStream(e)) {
                    add(ClassHeader.read(in), headers);
                } catch (IOException | RuntimeException ex) {
                    // a broken entry: the class cannot load either
                }
            }
        } catch (IOException | RuntimeException e) {
            errors.add(new Problem(url.toString(), null, "Failed to scan " + url + " in " + source.name()
                    + ": " + e, e));
        }
    }

    private static void add(ClassHeader h, Map<String, ClassHeader> headers) {
        headers.putIfAbsent(h.name, h);
    }

    /** Kafka's {@code PluginScanner.versionFor}: {@code version()} of a Versioned, else "undefined". */
    public static String versionFor(Object impl) {
        try {
            if (impl instanceof Versioned) {
                String v = ((Versioned) impl).version();
                return v != null ? v : "null";
            }
        } catch (Throwable t) {
            // Kafka logs "Failed to get plugin version for class ..." and uses "undefined"
        }
        return "undefined";
    }

    /** Kafka's {@code PluginScanner.reflectiveErrorDescription}. */
    public static String reflectiveErrorDescription(Throwable t) {
        if (t instanceof NoSuchMethodException) {
            return ": Plugin class must have a no-args constructor, and cannot be a non-static inner class";
        } else if (t instanceof SecurityException) {
            return ": Security settings must allow reflective instantiation of plugin classes";
        } else if (t instanceof IllegalAccessException) {
            return ": Plugin class default constructor must be public";
        } else if (t instanceof ExceptionInInitializerError) {
            return ": Failed to statically initialize plugin class";
        } else if (t instanceof InvocationTargetException) {
            return ": Failed to invoke plugin constructor";
        } else if (t instanceof LinkageError) {
            return ": Plugin class has a dependency which is missing or invalid";
        } else {
            return "";
        }
    }
}
