import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.AbstractHerder;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.runtime.isolation.PluginScanResult;
import org.apache.kafka.connect.runtime.isolation.PluginUtils;
import org.apache.kafka.connect.runtime.isolation.Plugins;
import org.apache.kafka.connect.runtime.rest.entities.ConfigKeyInfo;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.File;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Oracle of tests/plugin_host/scan.rs: Apache Kafka Connect's own {@code Plugins} on a
 * plugin.path. Args: PLUGIN_PATH MODE OPS_FILE. Prints a JSON array: first
 * {"plugins":[{class,type,version,location}]} (classpath plugins left out) or {"fail":message},
 * then one answer per op of OPS_FILE ({"op":"config_keys"|"validate"|"isolated","request":{...}}):
 * {"ok":...} (ConfigKeyInfo list / ConfigInfos as Kafka's REST writes them) or {"error":...}.
 */
public class KafkaPluginsOracle {
    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode out = mapper.createArrayNode();
        Map<String, String> worker = new HashMap<>();
        worker.put("plugin.path", args[0]);
        worker.put("plugin.discovery", args[1]);
        Plugins plugins;
        try {
            plugins = new Plugins(worker);
        } catch (Exception e) {
            out.add(mapper.createObjectNode().put("fail", e.getMessage()));
            System.out.println(mapper.writeValueAsString(out));
            return;
        }
        Field f = Plugins.class.getDeclaredField("scanResult");
        f.setAccessible(true);
        PluginScanResult scan = (PluginScanResult) f.get(plugins);
        ArrayNode list = mapper.createArrayNode();
        scan.forEach(d -> {
            if (!d.location().equals("classpath")) {
                list.add(mapper.createObjectNode().put("class", d.className()).put("type", d.typeName())
                        .put("version", d.version()).put("location", d.location()));
            }
        });
        ObjectNode first = mapper.createObjectNode();
        first.set("plugins", list);
        out.add(first);

        for (JsonNode op : mapper.readTree(new File(args[2]))) {
            JsonNode req = op.get("request");
            if (op.get("op").asText().equals("isolated")) {
                String name = req.get("name").asText();
                out.add(mapper.createObjectNode().put("ok", PluginUtils.shouldLoadInIsolation(name)));
                continue;
            }
            try {
                String className = req.get("class").asText();
                String version = req.hasNonNull("version") ? req.get("version").asText() : null;
                Class<?> klass = plugins.pluginClass(className, PluginUtils.connectorVersionRequirement(version));
                try (LoaderSwap swap = plugins.withClassLoader(klass.getClassLoader())) {
                    Object plugin = plugins.newPlugin(className, PluginUtils.connectorVersionRequirement(version));
                    ConfigDef def;
                    if (plugin instanceof Connector) {
                        def = ((Connector) plugin).config();
                    } else if (plugin instanceof Converter) {
                        def = ((Converter) plugin).config();
                    } else if (plugin instanceof HeaderConverter) {
                        def = ((HeaderConverter) plugin).config();
                    } else if (plugin instanceof Transformation) {
                        def = ((Transformation<?>) plugin).config();
                    } else {
                        def = ((Predicate<?>) plugin).config();
                    }
                    ObjectNode answer = mapper.createObjectNode();
                    if (op.get("op").asText().equals("config_keys")) {
                        List<ConfigKeyInfo> keys = new ArrayList<>();
                        for (ConfigDef.ConfigKey k : def.configKeys().values()) {
                            keys.add(AbstractHerder.convertConfigKey(k));
                        }
                        answer.set("ok", mapper.valueToTree(keys));
                    } else {
                        Map<String, String> props = new HashMap<>();
                        req.get("props").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
                        List<ConfigValue> values;
                        if (plugin instanceof Connector) {
                            Config c = ((Connector) plugin).validate(props);
                            values = c.configValues();
                        } else {
                            values = def.validate(props);
                        }
                        answer.set("ok", mapper.valueToTree(
                                AbstractHerder.generateResult(className, def.configKeys(), values, def.groups())));
                    }
                    out.add(answer);
                }
            } catch (Exception e) {
                out.add(mapper.createObjectNode().put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
            }
        }
        System.out.println(mapper.writeValueAsString(out));
    }
}
