// The Java side of the transform differential (tests/compat/compat_transforms.rs): runs every case of a
// corpus through Apache Kafka Connect's own single message transforms and predicates (the
// connect-transforms jar) and writes one result line per case.
//
//   java -cp "LIBS/*:CLASSES" TransformOracle CORPUS RESULTS
//
// CORPUS holds one JSON object per line, written by the Rust test:
//   {"id":"…","kind":"transform"|"predicate","class":"org.apache…InsertField$Value",
//    "config":{"k":"v",…},"record":{"topic":"t","partition":0|null,"offset":5|null,
//    "timestamp":123|null,"key":ENV|null,"value":ENV|null,"headers":[["k",ENV|null],…]}}
// ENV is a JsonConverter (schemas.enable=true, replace.null.with.default=false, so a null field
// stays null for the transform to see) envelope {"schema":…,"payload":…}; null stands for
// no bytes. A record with an offset is a SinkRecord (timestamp type CreateTime when it has a
// timestamp), without one a SourceRecord.
//
// RESULTS has one JSON object per line: {"id":…} plus one of
//   "config_error":{"class":…,"message":…}          configure() threw
//   "error":{"class":…,"message":…}                 apply() threw
//   "dropped":true                                  apply() returned null
//   "record":{"topic","partition","timestamp","key","value","headers":[[k,TEXT|null],…]}
//                                                   key/value/header values as the JsonConverter
//                                                   text (schemas enabled) or null, or
//                                                   "(cannot serialize: MESSAGE)"
//   "test":true|false                               a predicate's answer

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

public class TransformOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        JsonConverter conv = new JsonConverter();
        Map<String, Object> props = new HashMap<>();
        props.put("schemas.enable", "true");
        props.put("replace.null.with.default", "false");
        conv.configure(props, false);
        try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                JsonNode c = MAPPER.readTree(line);
                ObjectNode result = MAPPER.createObjectNode();
                result.put("id", c.get("id").asText());
                try {
                    runCase(conv, c, result);
                } catch (Throwable t) {
                    result.set("oracle_error", error(t));
                }
                out.write(MAPPER.writeValueAsString(result));
                out.write('\n');
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void runCase(JsonConverter conv, JsonNode c, ObjectNode result) throws Exception {
        ConnectRecord record = buildRecord(conv, c.get("record"));
        Map<String, String> config = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = c.get("config").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            config.put(e.getKey(), e.getValue().asText());
        }
        Object plugin = Class.forName(c.get("class").asText()).getDeclaredConstructor().newInstance();
        if (c.get("kind").asText().equals("predicate")) {
            Predicate p = (Predicate) plugin;
            try {
                p.configure(config);
            } catch (Exception e) {
                result.set("config_error", error(e));
                return;
            }
            try {
                result.put("test", p.test(record));
            } catch (Exception e) {
                result.set("error", error(e));
            }
            p.close();
            return;
        }
        Transformation t = (Transformation) plugin;
        try {
            t.configure(config);
        } catch (Exception e) {
            result.set("config_error", error(e));
            return;
        }
        ConnectRecord out;
        try {
            out = t.apply(record);
        } catch (Exception e) {
            result.set("error", error(e));
            return;
        }
        t.close();
        if (out == null) {
            result.put("dropped", true);
            return;
        }
        ObjectNode r = result.putObject("record");
        r.put("topic", out.topic());
        if (out.kafkaPartition() == null) r.putNull("partition");
        else r.put("partition", out.kafkaPartition().intValue());
        if (out.timestamp() == null) r.putNull("timestamp");
        else r.put("timestamp", out.timestamp().longValue());
        r.set("key", write(conv, out.topic(), null, out.keySchema(), out.key()));
        r.set("value", write(conv, out.topic(), null, out.valueSchema(), out.value()));
        ArrayNode hs = r.putArray("headers");
        for (Header h : out.headers()) {
            ArrayNode pair = hs.addArray();
            pair.add(h.key());
            pair.add(write(conv, out.topic(), h.key(), h.schema(), h.value()));
        }
    }

    private static ConnectRecord<?> buildRecord(JsonConverter conv, JsonNode r) throws Exception {
        String topic = r.get("topic").asText();
        SchemaAndValue key = read(conv, topic, r.get("key"));
        SchemaAndValue value = read(conv, topic, r.get("value"));
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode h : r.get("headers")) {
            String k = h.get(0).asText();
            SchemaAndValue sv = bytes(h.get(1)) == null
                ? SchemaAndValue.NULL : conv.toConnectHeader(topic, k, bytes(h.get(1)));
            headers.add(k, sv);
        }
        Integer partition = r.get("partition").isNull() ? null : r.get("partition").asInt();
        Long timestamp = r.get("timestamp").isNull() ? null : r.get("timestamp").asLong();
        if (r.hasNonNull("offset")) {
            return new SinkRecord(topic, partition, key.schema(), key.value(), value.schema(),
                value.value(), r.get("offset").asLong(), timestamp,
                timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : TimestampType.CREATE_TIME, headers);
        }
        return new SourceRecord(null, null, topic, partition, key.schema(), key.value(),
            value.schema(), value.value(), timestamp, headers);
    }

    private static byte[] bytes(JsonNode env) throws Exception {
        return env == null || env.isNull() ? null : MAPPER.writeValueAsBytes(env);
    }

    private static SchemaAndValue read(JsonConverter conv, String topic, JsonNode env) throws Exception {
        return conv.toConnectData(topic, bytes(env));
    }

    /** The converter's text, or "(cannot serialize: MESSAGE)" when the result does not convert. */
    private static JsonNode write(JsonConverter conv, String topic, String header,
                                  org.apache.kafka.connect.data.Schema schema, Object value) {
        try {
            return text(header == null ? conv.fromConnectData(topic, schema, value)
                                       : conv.fromConnectHeader(topic, header, schema, value));
        } catch (Exception e) {
            return MAPPER.getNodeFactory().textNode("(cannot serialize: " + e.getMessage() + ")");
        }
    }

    private static JsonNode text(byte[] data) {
        return data == null ? MAPPER.nullNode() : MAPPER.getNodeFactory().textNode(new String(data, StandardCharsets.UTF_8));
    }

    private static ObjectNode error(Throwable t) {
        ObjectNode e = MAPPER.createObjectNode();
        e.put("class", t.getClass().getName());
        if (t.getMessage() == null) e.putNull("message");
        else e.put("message", t.getMessage());
        return e;
    }
}
