package io.connectrs.host.run;

import io.connectrs.host.Handlers;
import io.connectrs.host.Main;
import io.connectrs.host.json.Json;
import io.connectrs.host.wire.JavaErrors;
import io.connectrs.host.wire.MessageType;
import io.connectrs.host.wire.codec.Buf;
import io.connectrs.host.wire.codec.Decoder;
import io.connectrs.host.wire.codec.Encoder;
import io.connectrs.host.wire.codec.Reader;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceConnectorContext;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs source connectors and source tasks for connect-rs (milestone M2): the connector lifecycle
 * ({@code CONN_START}, {@code CONN_TASK_CONFIGS}, {@code CONN_STOP}) and the source task lifecycle
 * ({@code TASK_START}, {@code TASK_POLL}, {@code TASK_COMMIT}, {@code TASK_STOP}), each instance on a
 * {@link PluginThread} of its own. The contexts talk back to connect-rs: a reconfiguration request
 * and a raised error are notifies, a connector's or task's {@code OffsetStorageReader} is an
 * {@code OFFSETS_READ} request answered from the connector's offsets in connect-rs.
 */
public final class Runners {
    private Runners() {}

    private static final Map<String, ConnectorRunner> CONNECTORS = new ConcurrentHashMap<>();
    private static final Map<String, TaskRunner> TASKS = new ConcurrentHashMap<>();

    /** Registers the handlers. */
    public static void register() {
        Handlers.register(MessageType.CONN_START, json(Runners::startConnector));
        Handlers.register(MessageType.CONN_TASK_CONFIGS, json(Runners::taskConfigs));
        Handlers.register(MessageType.CONN_STOP, json(Runners::stopConnector));
        Handlers.register(MessageType.TASK_START, json(Runners::startTask));
        Handlers.register(MessageType.TASK_POLL, payload -> task(payload).poll());
        Handlers.register(MessageType.TASK_COMMIT_RECORDS, json(Runners::commitRecords));
        Handlers.register(MessageType.CONN_EOS_SUPPORT, json(Runners::exactlyOnceSupport));
        Handlers.register(MessageType.CONN_ALTER_OFFSETS, json(Runners::alterOffsets));
        Handlers.register(MessageType.TASK_COMMIT, payload -> {
            task(payload).commit();
            return new byte[0];
        });
        Handlers.register(MessageType.TASK_STOP, payload -> {
            String id = (String) Json.parseObject(utf8(payload)).get("task");
            TaskRunner t = TASKS.remove(id);
            if (t != null) {
                t.stop();
            }
            return new byte[0];
        });
    }

    interface JsonCall {
        Object call(Map<String, Object> request) throws Exception;
    }

    private static io.connectrs.host.Handler json(JsonCall call) {
        return payload -> Json.write(call.call(Json.parseObject(utf8(payload)))).getBytes(StandardCharsets.UTF_8);
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** The {@code props} of a start request, as strings. */
    @SuppressWarnings("unchecked")
    static Map<String, String> props(Map<String, Object> req) {
        Map<String, String> out = new HashMap<>();
        Object p = req.get("props");
        if (p instanceof Map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) p).entrySet()) {
                out.put(e.getKey(), e.getValue() == null ? null : e.getValue().toString());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static ClassLoader loader(Map<String, Object> req, String className) throws Exception {
        return Loaders.loaderFor(className, (String) req.get("version"), (String) req.get("location"),
                (List<Object>) req.get("urls"));
    }

    private static Object newInstance(ClassLoader loader, String className) throws Exception {
        Class<?> c = Class.forName(className, true, loader);
        return c.getDeclaredConstructor().newInstance();
    }

    /** The frame payload of a message of the host to {@code target}: the target, then {@code body}. */
    static byte[] targeted(String target, byte[] body) {
        Buf out = new Buf(body.length + target.length() + 8);
        out.putStr(target);
        out.put(body, 0, body.length);
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- connectors

    private static final class ConnectorRunner {
        final String name;
        final PluginThread thread;
        final HostConnectorContext context;
        volatile Connector connector;

        ConnectorRunner(String name, PluginThread thread) {
            this.name = name;
            this.thread = thread;
            this.context = new HostConnectorContext(name);
        }
    }

    private static Object startConnector(Map<String, Object> req) throws Exception {
        String name = (String) req.get("conn");
        String className = (String) req.get("class");
        Map<String, String> props = props(req);
        ClassLoader loader = loader(req, className);
        ConnectorRunner old = CONNECTORS.remove(name);
        if (old != null) {
            stopQuietly(old);
        }
        ConnectorRunner r = new ConnectorRunner(name, new PluginThread("connector-" + name, loader));
        try {
            String taskClass = r.thread.call(() -> {
                Object o = newInstance(loader, className);
                if (!(o instanceof SourceConnector) && !(o instanceof org.apache.kafka.connect.sink.SinkConnector)) {
                    throw new ConnectException(className + " is neither a SourceConnector nor a SinkConnector");
                }
                Connector c = (Connector) o;
                c.initialize(r.context);
                r.connector = c;
                c.start(props);
                Class<?> tc = c.taskClass();
                return tc == null ? null : tc.getName();
            });
            CONNECTORS.put(name, r);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("task_class", taskClass);
            return out;
        } catch (Exception e) {
            r.thread.close();
            throw e;
        }
    }

    private static Object taskConfigs(Map<String, Object> req) throws Exception {
        String name = (String) req.get("conn");
        int maxTasks = ((Number) req.get("max_tasks")).intValue();
        ConnectorRunner r = connector(name);
        List<Map<String, String>> configs = r.thread.call(() -> r.connector.taskConfigs(maxTasks));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("configs", configs == null ? List.of() : configs);
        return out;
    }

    private static Object stopConnector(Map<String, Object> req) throws Exception {
        ConnectorRunner r = CONNECTORS.remove((String) req.get("conn"));
        if (r != null) {
            try {
                r.thread.call(() -> {
                    r.connector.stop();
                    return null;
                });
            } finally {
                r.thread.close();
                r.context.metrics.close();
            }
        }
        return Map.of();
    }

    private static void stopQuietly(ConnectorRunner r) {
        try {
            r.thread.call(() -> {
                r.connector.stop();
                return null;
            });
        } catch (Exception e) {
            // It was replaced: connect-rs lost track of it.
        } finally {
            r.thread.close();
            r.context.metrics.close();
        }
    }

    private static ConnectorRunner connector(String name) {
        ConnectorRunner r = CONNECTORS.get(name);
        if (r == null) {
            throw new IllegalStateException("connector " + name + " is not running in the plugin host");
        }
        return r;
    }

    /** {@code SourceConnectorContext}: reconfiguration requests and errors go to connect-rs. */
    private static final class HostConnectorContext implements SourceConnectorContext,
            org.apache.kafka.connect.sink.SinkConnectorContext {
        private final String name;
        final HostPluginMetrics metrics;
        /** The connector's committed offsets, read from connect-rs. */
        private final HostOffsetReader reader;

        HostConnectorContext(String name) {
            this.name = name;
            this.metrics = HostPluginMetrics.ofConnector(name);
            this.reader = new HostOffsetReader(name);
        }

        @Override
        public void requestTaskReconfiguration() {
            try {
                Main.notifyRust(MessageType.CONN_RECONFIGURE, targeted(name, new byte[0]));
            } catch (java.io.IOException e) {
                throw new ConnectException("connect-rs is gone", e);
            }
        }

        @Override
        public void raiseError(Exception e) {
            try {
                Main.notifyRust(MessageType.CONN_RAISE_ERROR, targeted(name, JavaErrors.payload(e)));
            } catch (java.io.IOException io) {
                throw new ConnectException("connect-rs is gone", io);
            }
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return metrics.get();
        }

        @Override
        public OffsetStorageReader offsetStorageReader() {
            return reader;
        }
    }

    // ---------------------------------------------------------------- tasks

    private static TaskRunner task(byte[] payload) {
        String id = (String) Json.parseObject(utf8(payload)).get("task");
        TaskRunner t = TASKS.get(id);
        if (t == null) {
            throw new IllegalStateException("task " + id + " is not running in the plugin host");
        }
        return t;
    }

    private static Object startTask(Map<String, Object> req) throws Exception {
        String id = (String) req.get("task");
        String connectorClass = (String) req.get("class");
        Map<String, String> props = props(req);
        ClassLoader loader = loader(req, connectorClass);
        TaskRunner old = TASKS.remove(id);
        if (old != null) {
            try {
                old.stop();
            } catch (Exception e) {
                // It was replaced: connect-rs lost track of it.
            }
        }
        TaskRunner t = new TaskRunner(id, props, new PluginThread("task-" + id, loader));
        try {
            t.thread.call(() -> {
                String taskClass = props.get("task.class");
                if (taskClass == null) {
                    Connector c = (Connector) newInstance(loader, connectorClass);
                    taskClass = c.taskClass().getName();
                }
                Object o = newInstance(loader, taskClass);
                if (!(o instanceof SourceTask)) {
                    throw new ConnectException(taskClass + " is not a SourceTask");
                }
                t.task = (SourceTask) o;
                t.task.initialize(t.context);
                t.task.start(props);
                t.pollAhead = new PollAhead(t.thread, t.task, overridesCommitRecord(t.task));
                return null;
            });
        } catch (Exception e) {
            t.thread.close();
            throw e;
        }
        TASKS.put(id, t);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("commit_record", overridesCommitRecord(t.task));
        return answer;
    }

    /** {@code CONN_EOS_SUPPORT}: a fresh connector's {@code exactlyOnceSupport(props)}, as Kafka Connect asks it. */
    private static Object exactlyOnceSupport(Map<String, Object> req) throws Exception {
        String connectorClass = (String) req.get("class");
        ClassLoader loader = loader(req, connectorClass);
        Map<String, String> props = props(req);
        return Loaders.withContextLoader(loader, () -> {
            Object c = newInstance(loader, connectorClass);
            ExactlyOnceSupport support = c instanceof SourceConnector
                ? ((SourceConnector) c).exactlyOnceSupport(props) : null;
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("support", support == null ? null : support.name());
            return answer;
        });
    }

    /** {@code CONN_ALTER_OFFSETS}: a fresh connector's {@code alterOffsets(props, offsets)}, as Kafka Connect asks it. */
    @SuppressWarnings("unchecked")
    private static Object alterOffsets(Map<String, Object> req) throws Exception {
        String connectorClass = (String) req.get("class");
        ClassLoader loader = loader(req, connectorClass);
        Map<String, String> props = props(req);
        return Loaders.withContextLoader(loader, () -> {
            Object c = newInstance(loader, connectorClass);
            boolean handled;
            if (req.get("source") instanceof List) {
                Map<Map<String, ?>, Map<String, ?>> offsets = new LinkedHashMap<>();
                for (Object o : (List<Object>) req.get("source")) {
                    Map<String, Object> e = (Map<String, Object>) o;
                    offsets.put((Map<String, ?>) e.get("partition"), (Map<String, ?>) e.get("offset"));
                }
                handled = ((SourceConnector) c).alterOffsets(props, offsets);
            } else {
                Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
                for (Object o : (List<Object>) req.get("sink")) {
                    Map<String, Object> e = (Map<String, Object>) o;
                    Object offset = e.get("offset");
                    offsets.put(new TopicPartition((String) e.get("topic"), ((Number) e.get("partition")).intValue()),
                        offset == null ? null : ((Number) offset).longValue());
                }
                handled = ((org.apache.kafka.connect.sink.SinkConnector) c).alterOffsets(props, offsets);
            }
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("handled", handled);
            return answer;
        });
    }

    /** Whether {@code task} overrides either {@code commitRecord} of {@code SourceTask} (their defaults do nothing). */
    static boolean overridesCommitRecord(SourceTask task) {
        for (Class<?> c = task.getClass(); c != null && c != SourceTask.class; c = c.getSuperclass()) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                if (m.getName().equals("commitRecord") && !m.isBridge() && !m.isSynthetic()) {
                    Class<?>[] p = m.getParameterTypes();
                    if ((p.length == 1 || p.length == 2 && p[1] == RecordMetadata.class) && p[0] == SourceRecord.class) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * {@code TASK_COMMIT_RECORDS}: {@code commitRecord} of each record numbered in the request, on the task's
     * thread; an exception is logged and the next record goes on, as Kafka Connect does.
     */
    @SuppressWarnings("unchecked")
    private static Object commitRecords(Map<String, Object> req) throws Exception {
        TaskRunner t = TASKS.get((String) req.get("task"));
        if (t == null || t.pollAhead == null) {
            throw new IllegalStateException("task " + req.get("task") + " is not running in the plugin host");
        }
        List<Object> records = (List<Object>) req.get("records");
        t.thread.call(() -> {
            for (Object o : records) {
                Map<String, Object> m = (Map<String, Object>) o;
                SourceRecord record = t.pollAhead.committed(((Number) m.get("n")).longValue());
                if (record == null) {
                    continue;
                }
                RecordMetadata metadata = null;
                if (m.get("topic") != null) {
                    metadata = new RecordMetadata(
                        new TopicPartition((String) m.get("topic"), ((Number) m.get("partition")).intValue()),
                        ((Number) m.get("offset")).longValue(), 0, ((Number) m.get("timestamp")).longValue(), -1, -1);
                }
                try {
                    t.task.commitRecord(record, metadata);
                } catch (Throwable e) {
                    System.err.println("task " + t.id + ": commitRecord threw " + e);
                }
            }
            return null;
        });
        return Map.of();
    }

    private static final class TaskRunner {
        final String id;
        final PluginThread thread;
        final HostTaskContext context;
        volatile SourceTask task;
        /** Set once the task started. */
        volatile PollAhead pollAhead;

        TaskRunner(String id, Map<String, String> props, PluginThread thread) {
            this.id = id;
            this.thread = thread;
            this.context = new HostTaskContext(id, props);
        }

        byte[] poll() throws Exception {
            return pollAhead.take();
        }

        void commit() throws Exception {
            thread.call(() -> {
                task.commit();
                return null;
            });
        }

        void stop() throws Exception {
            if (pollAhead != null) {
                pollAhead.stop();
            }
            try {
                thread.call(() -> {
                    task.stop();
                    return null;
                });
            } finally {
                thread.close();
                context.metrics.close();
            }
        }
    }

    /** {@code SourceTaskContext}: the task's configuration, and its offsets read from connect-rs. */
    private static final class HostTaskContext implements SourceTaskContext {
        private final Map<String, String> configs;
        private final HostOffsetReader reader;
        final HostPluginMetrics metrics;

        HostTaskContext(String id, Map<String, String> configs) {
            this.configs = configs;
            this.reader = new HostOffsetReader(id);
            this.metrics = HostPluginMetrics.ofTask(id);
        }

        @Override
        public Map<String, String> configs() {
            return configs;
        }

        @Override
        public OffsetStorageReader offsetStorageReader() {
            return reader;
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return metrics.get();
        }
    }

    /**
     * {@code OffsetStorageReader} of a task: one {@code OFFSETS_READ} request per call, answered from the
     * offsets connect-rs stored; numbers come back as Kafka's JSON round trip gives them (integers as
     * {@code Long}).
     */
    private static final class HostOffsetReader implements OffsetStorageReader {
        private final String target;

        HostOffsetReader(String target) {
            this.target = target;
        }

        @Override
        public <T> Map<String, Object> offset(Map<String, T> partition) {
            return offsets(List.of(partition)).get(partition);
        }

        @Override
        public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
            List<Map<String, T>> list = new ArrayList<>(partitions);
            Encoder enc = new Encoder();
            Buf body = new Buf(64);
            body.putUvarint(list.size());
            for (Map<String, T> p : list) {
                enc.offsetMap(p, body);
            }
            byte[] answer;
            try {
                answer = Main.request(MessageType.OFFSETS_READ, targeted(target, body.toByteArray()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectException("interrupted while reading offsets", e);
            } catch (java.io.IOException e) {
                throw new ConnectException("Failed to fetch offsets: " + e.getMessage(), e);
            }
            Reader in = new Reader(answer);
            Decoder dec = new Decoder();
            int n = in.len("the number of offsets");
            Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
            for (int i = 0; i < n && i < list.size(); i++) {
                Map<String, Object> offset = dec.offsetMap(in);
                if (offset != null) {
                    out.put(list.get(i), offset);
                }
            }
            return out;
        }
    }
}
