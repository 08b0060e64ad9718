// The Java side of the internal-records differential (tests/compat/compat_internal_records.rs): writes
// every case as Apache Kafka Connect's own stores write it and prints the key and value bytes.
//
//   java -cp "LIBS/*:CLASSES" InternalRecordsOracle CASES RESULTS
//
// CASES holds one JSON object per line (written by the Rust test), with "id" and "kind":
//   connector {name, props}         task {connector, task, props}     commit {connector, tasks}
//   target {connector, state}       restart {connector, include_tasks, only_failed}
//   session {key_hex, algorithm, ts}  fencing {connector, count}      logger {namespace, level}
//   status-connector {connector, state, trace, worker, generation, version}
//   status-task {connector, task, state, trace, worker, generation, version}
//   status-topic {topic, connector, task, ts}    offset {connector, partition, offset}
// RESULTS has one line per case: id TAB key-hex TAB value-hex | NULL | ERR message.
//
// Values come from the stores' own code where it is reachable without a broker: the public
// schema constants of KafkaConfigBackingStore with the converter it is given,
// KafkaConfigBackingStore.serializeTargetState, KafkaStatusBackingStore.serialize and
// serializeTopicStatus (private, called by reflection), and a real OffsetStorageWriter flushing
// into a backing store that only captures the bytes. The converters are configured as the
// worker configures its internal converters: JsonConverter with schemas.enable=false.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.AbstractStatus;
import org.apache.kafka.connect.runtime.ConnectorStatus;
import org.apache.kafka.connect.runtime.TargetState;
import org.apache.kafka.connect.runtime.TaskStatus;
import org.apache.kafka.connect.runtime.TopicStatus;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.KafkaConfigBackingStore;
import org.apache.kafka.connect.storage.KafkaStatusBackingStore;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetStorageWriter;
import org.apache.kafka.connect.util.Callback;
import org.apache.kafka.connect.util.ConnectorTaskId;

public class InternalRecordsOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String TOPIC = "connect-configs";

    static JsonConverter internalConverter(boolean isKey) {
        JsonConverter c = new JsonConverter();
        Map<String, String> cfg = new HashMap<>();
        cfg.put("schemas.enable", "false");
        c.configure(cfg, isKey);
        return c;
    }

    static final JsonConverter KEY_CONVERTER = internalConverter(true);
    static final JsonConverter VALUE_CONVERTER = internalConverter(false);

    /** A backing store that keeps the serialized offsets of the last flush. */
    static class CapturingStore implements OffsetBackingStore {
        Map<ByteBuffer, ByteBuffer> last;
        public void start() {}
        public void stop() {}
        public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
            return CompletableFuture.completedFuture(new HashMap<>());
        }
        public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
            last = values;
            callback.onCompletion(null, null);
            return CompletableFuture.completedFuture(null);
        }
        public Set<Map<String, Object>> connectorPartitions(String connector) {
            return null;
        }
        public void configure(WorkerConfig config) {}
    }

    static String hex(byte[] b) {
        if (b == null) return "NULL";
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    static byte[] unhex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    static String text(JsonNode n, String f) {
        JsonNode v = n.get(f);
        return v == null || v.isNull() ? null : v.asText();
    }

    static Map<String, String> props(JsonNode n) {
        Map<String, String> out = new TreeMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> jsonMap(JsonNode n) {
        return n == null || n.isNull() ? null : MAPPER.convertValue(n, LinkedHashMap.class);
    }

    static byte[] value(org.apache.kafka.connect.data.Schema schema, Struct s) {
        return VALUE_CONVERTER.fromConnectData(TOPIC, schema, s);
    }

    public static void main(String[] args) throws Exception {
        // serializeTargetState needs a store instance; building one needs a broker, so allocate
        // it without its constructor and give it the two fields the method reads.
        Field unsafeField = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        unsafeField.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) unsafeField.get(null);
        KafkaConfigBackingStore configStore =
            (KafkaConfigBackingStore) unsafe.allocateInstance(KafkaConfigBackingStore.class);
        for (String[] f : new String[][] {{"converter"}, {"topic"}}) {
            Field field = KafkaConfigBackingStore.class.getDeclaredField(f[0]);
            field.setAccessible(true);
            field.set(configStore, f[0].equals("converter") ? VALUE_CONVERTER : TOPIC);
        }
        Method serializeTargetState =
            KafkaConfigBackingStore.class.getDeclaredMethod("serializeTargetState", TargetState.class);
        serializeTargetState.setAccessible(true);

        KafkaStatusBackingStore statusStore =
            new KafkaStatusBackingStore(Time.SYSTEM, VALUE_CONVERTER, null, "oracle-");
        Method serializeStatus =
            KafkaStatusBackingStore.class.getDeclaredMethod("serialize", AbstractStatus.class);
        serializeStatus.setAccessible(true);
        Method serializeTopicStatus =
            KafkaStatusBackingStore.class.getDeclaredMethod("serializeTopicStatus", TopicStatus.class);
        serializeTopicStatus.setAccessible(true);

        try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                JsonNode c = MAPPER.readTree(line);
                String kind = c.get("kind").asText();
                String key;
                byte[] keyBytes = null;
                byte[] val = null;
                String err = null;
                switch (kind) {
                    case "connector": {
                        key = KafkaConfigBackingStore.CONNECTOR_KEY(c.get("name").asText());
                        Struct s = new Struct(KafkaConfigBackingStore.CONNECTOR_CONFIGURATION_V0);
                        s.put("properties", props(c.get("props")));
                        val = value(KafkaConfigBackingStore.CONNECTOR_CONFIGURATION_V0, s);
                        break;
                    }
                    case "task": {
                        key = KafkaConfigBackingStore.TASK_KEY(
                            new ConnectorTaskId(c.get("connector").asText(), c.get("task").asInt()));
                        Struct s = new Struct(KafkaConfigBackingStore.TASK_CONFIGURATION_V0);
                        s.put("properties", props(c.get("props")));
                        val = value(KafkaConfigBackingStore.TASK_CONFIGURATION_V0, s);
                        break;
                    }
                    case "commit": {
                        key = KafkaConfigBackingStore.COMMIT_TASKS_KEY(c.get("connector").asText());
                        Struct s = new Struct(KafkaConfigBackingStore.CONNECTOR_TASKS_COMMIT_V0);
                        s.put("tasks", c.get("tasks").asInt());
                        val = value(KafkaConfigBackingStore.CONNECTOR_TASKS_COMMIT_V0, s);
                        break;
                    }
                    case "target": {
                        key = KafkaConfigBackingStore.TARGET_STATE_KEY(c.get("connector").asText());
                        val = (byte[]) serializeTargetState.invoke(
                            configStore, TargetState.valueOf(c.get("state").asText()));
                        break;
                    }
                    case "restart": {
                        key = KafkaConfigBackingStore.RESTART_KEY(c.get("connector").asText());
                        Struct s = new Struct(KafkaConfigBackingStore.RESTART_REQUEST_V0);
                        s.put(KafkaConfigBackingStore.INCLUDE_TASKS_FIELD_NAME, c.get("include_tasks").asBoolean());
                        s.put(KafkaConfigBackingStore.ONLY_FAILED_FIELD_NAME, c.get("only_failed").asBoolean());
                        val = value(s.schema(), s);
                        break;
                    }
                    case "session": {
                        key = KafkaConfigBackingStore.SESSION_KEY_KEY;
                        Struct s = new Struct(KafkaConfigBackingStore.SESSION_KEY_V0);
                        s.put("key", Base64.getEncoder().encodeToString(unhex(c.get("key_hex").asText())));
                        s.put("algorithm", c.get("algorithm").asText());
                        s.put("creation-timestamp", c.get("ts").asLong());
                        val = value(KafkaConfigBackingStore.SESSION_KEY_V0, s);
                        break;
                    }
                    case "fencing": {
                        key = KafkaConfigBackingStore.TASK_COUNT_RECORD_KEY(c.get("connector").asText());
                        Struct s = new Struct(KafkaConfigBackingStore.TASK_COUNT_RECORD_V0);
                        s.put("task-count", c.get("count").asInt());
                        val = value(KafkaConfigBackingStore.TASK_COUNT_RECORD_V0, s);
                        break;
                    }
                    case "logger": {
                        key = KafkaConfigBackingStore.LOGGER_CLUSTER_KEY(c.get("namespace").asText());
                        Struct s = new Struct(KafkaConfigBackingStore.LOGGER_LEVEL_V0);
                        s.put("level", c.get("level").asText());
                        val = value(s.schema(), s);
                        break;
                    }
                    case "status-connector": {
                        String conn = c.get("connector").asText();
                        key = KafkaStatusBackingStore.CONNECTOR_STATUS_PREFIX + conn;
                        ConnectorStatus st = new ConnectorStatus(conn,
                            AbstractStatus.State.valueOf(c.get("state").asText()), text(c, "trace"),
                            c.get("worker").asText(), c.get("generation").asInt(), text(c, "version"));
                        val = (byte[]) serializeStatus.invoke(statusStore, st);
                        break;
                    }
                    case "status-task": {
                        ConnectorTaskId id = new ConnectorTaskId(c.get("connector").asText(), c.get("task").asInt());
                        key = KafkaStatusBackingStore.TASK_STATUS_PREFIX + id.connector() + "-" + id.task();
                        TaskStatus st = new TaskStatus(id,
                            AbstractStatus.State.valueOf(c.get("state").asText()), c.get("worker").asText(),
                            c.get("generation").asInt(), text(c, "trace"), text(c, "version"));
                        val = (byte[]) serializeStatus.invoke(statusStore, st);
                        break;
                    }
                    case "status-topic": {
                        String topic = c.get("topic").asText();
                        String conn = c.get("connector").asText();
                        key = KafkaStatusBackingStore.TOPIC_STATUS_PREFIX + topic
                            + KafkaStatusBackingStore.TOPIC_STATUS_SEPARATOR + conn;
                        TopicStatus st = new TopicStatus(topic, conn, c.get("task").asInt(), c.get("ts").asLong());
                        val = (byte[]) serializeTopicStatus.invoke(statusStore, st);
                        break;
                    }
                    case "offset": {
                        String conn = c.get("connector").asText();
                        key = null;
                        CapturingStore store = new CapturingStore();
                        OffsetStorageWriter writer = new OffsetStorageWriter(store, conn, KEY_CONVERTER, VALUE_CONVERTER);
                        writer.offset(jsonMap(c.get("partition")), jsonMap(c.get("offset")));
                        writer.beginFlush();
                        String[] failure = new String[1];
                        writer.doFlush((error, result) -> {
                            if (error != null) failure[0] = error.getMessage();
                        });
                        if (failure[0] != null) {
                            err = failure[0];
                        } else {
                            Map.Entry<ByteBuffer, ByteBuffer> e = store.last.entrySet().iterator().next();
                            keyBytes = e.getKey().array();
                            val = e.getValue() == null ? null : e.getValue().array();
                        }
                        break;
                    }
                    default:
                        throw new IllegalArgumentException("unknown case kind " + kind);
                }
                if (key != null) keyBytes = key.getBytes(StandardCharsets.UTF_8);
                out.write(c.get("id").asText());
                out.write('\t');
                if (err != null) {
                    out.write("ERR " + err.replace('\n', ' ').replace('\t', ' '));
                } else {
                    out.write(hex(keyBytes));
                    out.write('\t');
                    out.write(hex(val));
                }
                out.write('\n');
            }
        }
    }
}
