package io.connectrs.host.scan;

import io.connectrs.host.isolation.DelegatingLoader;
import io.connectrs.host.isolation.PluginLoader;
import io.connectrs.host.json.Json;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scan service of the plugin host: pure functions JSON in → JSON out (shapes in
 * {@code src/plugin_host/scan.rs}). {@link #scan} discovers the plugins of the requested locations
 * and keeps them (their loaders under one {@link DelegatingLoader}) for {@link #configKeys} and
 * {@link #validate}, which instantiate a plugin under its own loader and render its
 * {@code ConfigDef} with Kafka's REST rules ({@code AbstractHerder.convertConfigKey},
 * {@code convertConfigValue}, {@code generateResult}). Errors are thrown (the frame layer turns
 * them into ERR frames).
 */
public final class ScanService {
    private ScanService() {
    }

    /** A plugin that is not known (Kafka's 404 "Unknown plugin X."). */
    public static final class NotFound extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotFound(String message) {
            super(message);
        }
    }

    /** A plugin that answered something Kafka refuses (Kafka's 400). */
    public static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public BadRequest(String message) {
            super(message);
        }
    }

    private static final class State {
        final DelegatingLoader delegating;
        final List<Scanner.Desc> plugins;

        State(DelegatingLoader delegating, List<Scanner.Desc> plugins) {
            this.delegating = delegating;
            this.plugins = plugins;
        }
    }

    private static volatile State current;

    /** The loader that routes plugin class names to their plugin loaders ({@code null} before a scan). */
    public static DelegatingLoader delegatingLoader() {
        State s = current;
        return s == null ? null : s.delegating;
    }

    /** The plugins of the last scan. */
    public static List<Scanner.Desc> plugins() {
        State s = current;
        return s == null ? List.of() : s.plugins;
    }

    /** {@code SCAN}: {@code {"mode","locations":[{"path","urls"}],"classpath"}} → ScanResult. */
    @SuppressWarnings("unchecked")
    public static String scan(String requestJson) throws Exception {
        Map<String, Object> req = Json.parseObject(requestJson);
        Object modeValue = req.get("mode");
        Scanner.Mode mode = modeValue == null ? Scanner.Mode.HYBRID_WARN : Scanner.Mode.parse((String) modeValue);
        ClassLoader host = ScanService.class.getClassLoader();
        DelegatingLoader delegating = new DelegatingLoader(host);
        List<Scanner.Source> sources = new ArrayList<>();
        for (Object o : (List<Object>) req.getOrDefault("locations", List.of())) {
            Map<String, Object> loc = (Map<String, Object>) o;
            String path = (String) loc.get("path");
            List<Path> urls = new ArrayList<>();
            List<URL> jurls = new ArrayList<>();
            for (Object u : (List<Object>) loc.getOrDefault("urls", List.of())) {
                Path p = Paths.get((String) u);
                urls.add(p);
                jurls.add(p.toUri().toURL());
            }
            PluginLoader loader = new PluginLoader(path, jurls.toArray(new URL[0]), delegating);
            sources.add(new Scanner.Source(path, urls, loader));
        }
        List<Path> cp = new ArrayList<>();
        for (Object u : (List<Object>) req.getOrDefault("classpath", List.of())) {
            cp.add(Paths.get((String) u));
        }
        if (!cp.isEmpty()) {
            sources.add(new Scanner.Source(null, cp, host));
        }
        Scanner.Result result = Scanner.scan(mode, sources);
        for (Scanner.Desc d : result.plugins) {
            delegating.install(d.className(), d.version, d.source.loader);
        }
        current = new State(delegating, List.copyOf(result.plugins));

        Map<String, Object> out = new LinkedHashMap<>();
        List<Object> plugins = new ArrayList<>();
        for (Scanner.Desc d : result.plugins) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("class", d.className());
            p.put("type", d.kind.typeName());
            p.put("version", d.version);
            p.put("location", d.source.name());
            p.put("via_manifest", d.viaManifest());
            plugins.add(p);
        }
        out.put("plugins", plugins);
        List<Object> errors = new ArrayList<>();
        for (Scanner.Problem e : result.errors) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("location", e.location);
            p.put("class", e.className);
            p.put("message", e.message);
            p.put("trace", e.cause == null ? null : trace(e.cause));
            errors.add(p);
        }
        out.put("errors", errors);
        if (result.missingManifests == null) {
            out.put("hybrid_report", null);
        } else {
            List<Object> missing = new ArrayList<>();
            for (Scanner.Desc d : result.missingManifests) {
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("location", d.source.kafkaLocation());
                p.put("class", d.className());
                p.put("type", d.kind.typeName());
                p.put("version", d.version);
                missing.add(p);
            }
            out.put("hybrid_report", missing);
        }
        out.put("hybrid_message", result.hybridMessage);
        return Json.write(out);
    }

    /** {@code CONFIG_KEYS}: {@code {"class","type","version"}} → {@code [ConfigKeyInfo]} of the plugin's own {@code config()}. */
    public static String configKeys(String requestJson) throws Exception {
        Map<String, Object> req = Json.parseObject(requestJson);
        Scanner.Desc desc = find(req);
        return withPlugin(desc, plugin -> {
            ConfigDef def = configDef(desc, plugin);
            List<Object> keys = new ArrayList<>();
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                keys.add(convertConfigKey(key));
            }
            return Json.write(keys);
        });
    }

    /**
     * {@code VALIDATE}: {@code {"class","type","version","props"}} → {@code {"error_count","groups","configs"}}:
     * a connector's {@code config()} and {@code validate(props)}, another plugin's
     * {@code config().validate(props)}, as {@code AbstractHerder.generateResult} renders them.
     */
    @SuppressWarnings("unchecked")
    public static String validate(String requestJson) throws Exception {
        Map<String, Object> req = Json.parseObject(requestJson);
        Scanner.Desc desc = find(req);
        Map<String, String> props = new HashMap<>();
        Object raw = req.get("props");
        if (raw instanceof Map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) raw).entrySet()) {
                props.put(e.getKey(), e.getValue() == null ? null : e.getValue().toString());
            }
        }
        return withPlugin(desc, plugin -> {
            ConfigDef def = configDef(desc, plugin);
            List<ConfigValue> values;
            if (plugin instanceof Connector) {
                Config config = ((Connector) plugin).validate(props);
                if (config == null) {
                    throw new BadRequest(String.format("%s.validate() must return a Config that is not null.",
                            plugin.getClass().getName()));
                }
                values = config.configValues();
            } else {
                values = def.validate(props);
            }
            if (Boolean.TRUE.equals(req.get("in_value_order"))) {
                return Json.write(valueOrderResult(def.configKeys(), values));
            }
            return Json.write(generateResult(def.configKeys(), values, def.groups()));
        });
    }

    private interface PluginCall {
        String apply(Object plugin) throws Exception;
    }

    /** Instantiates the plugin under its loader (also the context loader), calls, closes it. */
    private static String withPlugin(Scanner.Desc desc, PluginCall call) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        ClassLoader loader = desc.source.loader;
        t.setContextClassLoader(loader);
        Object plugin = null;
        try {
            plugin = desc.klass.getDeclaredConstructor().newInstance();
            return call.apply(plugin);
        } finally {
            if (plugin instanceof AutoCloseable) {
                try {
                    ((AutoCloseable) plugin).close();
                } catch (Exception ignored) {
                    // a close failure of a throw-away instance does not matter
                }
            }
            t.setContextClassLoader(saved);
        }
    }

    private static Scanner.Desc find(Map<String, Object> req) {
        String className = (String) req.get("class");
        if (className == null) {
            throw new IllegalArgumentException("the request names no \"class\"");
        }
        PluginKind kind = req.get("type") == null ? null : PluginKind.parse((String) req.get("type"));
        String version = (String) req.get("version");
        boolean latest = version == null || version.equals("latest");
        Scanner.Desc best = null;
        List<String> available = new ArrayList<>();
        for (Scanner.Desc d : plugins()) {
            if (!d.className().equals(className) || (kind != null && d.kind != kind)) {
                continue;
            }
            available.add(d.version);
            if (latest ? (best == null || Scanner.ORDER.compare(best, d) <= 0) : d.version.equals(version)) {
                best = d;
            }
        }
        if (best == null) {
            if (available.isEmpty()) {
                throw new NotFound("Unknown plugin " + className + ".");
            }
            throw new BadRequest(String.format("Plugin %s not found that matches the version range %s, available versions: %s",
                    className, version, String.join(", ", available)));
        }
        return best;
    }

    private static ConfigDef configDef(Scanner.Desc desc, Object plugin) {
        ConfigDef def;
        if (plugin instanceof Connector) {
            def = ((Connector) plugin).config();
        } else if (plugin instanceof Converter) {
            def = ((Converter) plugin).config();
        } else if (plugin instanceof HeaderConverter) {
            def = ((HeaderConverter) plugin).config();
        } else if (plugin instanceof Transformation) {
            def = ((Transformation<?>) plugin).config();
        } else if (plugin instanceof Predicate) {
            def = ((Predicate<?>) plugin).config();
        } else {
            throw new BadRequest("Invalid plugin class " + desc.className()
                    + ". Valid types are sink, source, converter, header_converter, transformation, predicate.");
        }
        if (def == null) {
            throw new BadRequest(String.format("%s.config() must return a ConfigDef that is not null.",
                    plugin.getClass().getName()));
        }
        return def;
    }

    /** Kafka's {@code AbstractHerder.convertConfigKey} as REST JSON. */
    public static Map<String, Object> convertConfigKey(ConfigDef.ConfigKey key) {
        Map<String, Object> m = new LinkedHashMap<>();
        boolean required = ConfigDef.NO_DEFAULT_VALUE.equals(key.defaultValue);
        m.put("name", key.name);
        m.put("type", key.type.name());
        m.put("required", required);
        m.put("default_value", required ? null : ConfigDef.convertToString(key.defaultValue, key.type));
        m.put("importance", key.importance.name());
        m.put("documentation", key.documentation);
        m.put("group", key.group);
        m.put("order_in_group", key.orderInGroup);
        m.put("width", key.width.name());
        m.put("display_name", key.displayName);
        m.put("dependents", key.dependents);
        return m;
    }

    /** Kafka's {@code AbstractHerder.convertConfigValue} as REST JSON. */
    public static Map<String, Object> convertConfigValue(ConfigValue value, ConfigDef.Type type) {
        List<String> recommended = new ArrayList<>();
        ConfigDef.Type recType = type == ConfigDef.Type.LIST ? ConfigDef.Type.STRING : type;
        for (Object o : value.recommendedValues()) {
            recommended.add(ConfigDef.convertToString(o, recType));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", value.name());
        m.put("value", ConfigDef.convertToString(value.value(), type));
        m.put("recommended_values", recommended);
        m.put("errors", value.errorMessages());
        m.put("visible", value.visible());
        return m;
    }

    /** Kafka's {@code AbstractHerder.generateResult} (without the name): values without a key first. */
    /**
     * As Kafka Connect's {@code AbstractHerder.prefixedConfigInfos} (a converter's keys, without the prefix):
     * the values in the order {@code validate} gave them, each with its key's definition; the groups of those
     * keys in that order.
     */
    static Map<String, Object> valueOrderResult(Map<String, ConfigDef.ConfigKey> keys, List<ConfigValue> values) {
        int errorCount = 0;
        java.util.Set<String> groups = new java.util.LinkedHashSet<>();
        List<Object> configs = new ArrayList<>();
        for (ConfigValue v : values) {
            ConfigDef.ConfigKey key = keys.get(v.name());
            if (key != null && key.group != null) {
                groups.add(key.group);
            }
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("definition", key == null ? null : convertConfigKey(key));
            info.put("value", convertConfigValue(v, key == null ? null : key.type));
            errorCount += v.errorMessages().size();
            configs.add(info);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("error_count", errorCount);
        out.put("groups", new ArrayList<>(groups));
        out.put("configs", configs);
        return out;
    }

    public static Map<String, Object> generateResult(Map<String, ConfigDef.ConfigKey> keys, List<ConfigValue> values,
                                                     List<String> groups) {
        int errorCount = 0;
        List<Object> configs = new ArrayList<>();
        Map<String, ConfigValue> byName = new HashMap<>();
        for (ConfigValue v : values) {
            byName.put(v.name(), v);
            if (!keys.containsKey(v.name())) {
                Map<String, Object> info = new LinkedHashMap<>();
                info.put("definition", null);
                info.put("value", convertConfigValue(v, null));
                configs.add(info);
                errorCount += v.errorMessages().size();
            }
        }
        for (Map.Entry<String, ConfigDef.ConfigKey> e : keys.entrySet()) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("definition", convertConfigKey(e.getValue()));
            ConfigValue v = byName.get(e.getKey());
            info.put("value", v == null ? null : convertConfigValue(v, e.getValue().type));
            if (v != null) {
                errorCount += v.errorMessages().size();
            }
            configs.add(info);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("error_count", errorCount);
        out.put("groups", groups);
        out.put("configs", configs);
        return out;
    }

    private static String trace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
