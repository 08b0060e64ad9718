package io.connectrs.host.run;

import io.connectrs.host.Handlers;
import io.connectrs.host.json.Json;
import io.connectrs.host.wire.JavaErrors;
import io.connectrs.host.wire.MessageType;
import io.connectrs.host.wire.codec.Decoder;
import io.connectrs.host.wire.codec.Reader;
import io.connectrs.host.wire.codec.SinkRecordFactory;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.sink.SinkTaskContext;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs sink tasks for connect-rs (milestone M3): {@code SINK_START} ({@code initialize} + {@code start}),
 * {@code SINK_OPEN}, {@code SINK_PUT} (records in the binary codec, one decoder per task),
 * {@code SINK_PRE_COMMIT} (the task's {@code preCommit}, by default {@code flush}), {@code SINK_CLOSE},
 * {@code SINK_STOP}, each task on a {@link PluginThread} of its own, in its location's loader. Sink
 * connectors run through {@link Runners}' connector lifecycle.
 *
 * <p>The task's {@code SinkTaskContext} keeps {@code configs()} and {@code assignment()} (from the opens and
 * closes); {@code timeout(ms)} delays the answer of a {@code put} that threw a {@code RetriableException} by
 * that long (connect-rs then redelivers the batch); {@code requestCommit()} is a notify to connect-rs, whose
 * sink loop commits after the current batch; {@code offset}, {@code pause} and {@code resume} are notifies
 * too, sent before the answer of the call that made them: connect-rs's sink loop applies them before it reads
 * again, as Kafka Connect's does before its next poll ({@code pause} and {@code resume} of a partition not
 * assigned to the task throw Kafka's {@code IllegalWorkerStateException});
 * {@code errantRecordReporter()} reports a record of the running {@code put} to connect-rs, which handles it
 * when {@code put} returns as Kafka does (log, dead letter queue, {@code errors.tolerance}).
 */
public final class SinkRunners {
    private SinkRunners() {}

    private static final Map<String, SinkTaskRunner> TASKS = new ConcurrentHashMap<>();

    /** Registers the handlers. */
    public static void register() {
        Handlers.register(MessageType.SINK_START, json(SinkRunners::start));
        Handlers.register(MessageType.SINK_OPEN, json(req -> {
            SinkTaskRunner t = task(req);
            List<TopicPartition> tps = partitions(req);
            t.thread.call(() -> {
                t.context.assignment.addAll(tps);
                t.task.open(tps);
                return null;
            });
            return Map.of();
        }));
        Handlers.register(MessageType.SINK_PUT, SinkRunners::put);
        Handlers.register(MessageType.SINK_PRE_COMMIT, json(SinkRunners::preCommit));
        Handlers.register(MessageType.SINK_CLOSE, json(req -> {
            SinkTaskRunner t = task(req);
            List<TopicPartition> tps = partitions(req);
            t.thread.call(() -> {
                try {
                    t.task.close(tps);
                } finally {
                    tps.forEach(t.context.assignment::remove);
                }
                return null;
            });
            return Map.of();
        }));
        Handlers.register(MessageType.SINK_STOP, json(req -> {
            SinkTaskRunner t = TASKS.remove((String) req.get("task"));
            if (t != null) {
                t.stop();
            }
            return Map.of();
        }));
    }

    interface JsonCall {
        Object call(Map<String, Object> request) throws Exception;
    }

    private static io.connectrs.host.Handler json(JsonCall call) {
        return payload -> Json.write(call.call(Json.parseObject(new String(payload, StandardCharsets.UTF_8))))
            .getBytes(StandardCharsets.UTF_8);
    }

    private static SinkTaskRunner task(String id) {
        SinkTaskRunner t = TASKS.get(id);
        if (t == null) {
            throw new IllegalStateException("sink task " + id + " is not running in the plugin host");
        }
        return t;
    }

    private static SinkTaskRunner task(Map<String, Object> req) {
        return task((String) req.get("task"));
    }

    @SuppressWarnings("unchecked")
    private static List<TopicPartition> partitions(Map<String, Object> req) {
        List<TopicPartition> out = new ArrayList<>();
        Object list = req.get("partitions");
        if (list instanceof List) {
            for (Object o : (List<Object>) list) {
                Map<String, Object> m = (Map<String, Object>) o;
                out.add(new TopicPartition((String) m.get("topic"), ((Number) m.get("partition")).intValue()));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object start(Map<String, Object> req) throws Exception {
        String id = (String) req.get("task");
        String connectorClass = (String) req.get("class");
        Map<String, String> props = Runners.props(req);
        ClassLoader loader = Loaders.loaderFor(connectorClass, (String) req.get("version"),
            (String) req.get("location"), (List<Object>) req.get("urls"));
        SinkTaskRunner old = TASKS.remove(id);
        if (old != null) {
            try {
                old.stop();
            } catch (Exception e) {
                // It was replaced: connect-rs lost track of it.
            }
        }
        SinkTaskRunner t = new SinkTaskRunner(id, props, new PluginThread("sink-task-" + id, loader));
        try {
            t.thread.call(() -> {
                String taskClass = props.get("task.class");
                if (taskClass == null) {
                    Connector c = (Connector) Class.forName(connectorClass, true, loader)
                        .getDeclaredConstructor().newInstance();
                    taskClass = c.taskClass().getName();
                }
                Object o = Class.forName(taskClass, true, loader).getDeclaredConstructor().newInstance();
                if (!(o instanceof SinkTask)) {
                    throw new ConnectException(taskClass + " is not a SinkTask");
                }
                t.task = (SinkTask) o;
                t.task.initialize(t.context);
                t.task.start(props);
                return null;
            });
        } catch (Exception e) {
            t.thread.close();
            throw e;
        }
        TASKS.put(id, t);
        return Map.of();
    }

    /** {@code SINK_PUT}: the task id (string), a varint count, then that many SINK_RECORD items. */
    private static byte[] put(byte[] payload) throws Exception {
        Reader in = new Reader(payload);
        SinkTaskRunner t = task(in.str("the sink task's id"));
        return t.thread.call(() -> {
            List<SinkRecord> records;
            try {
                int n = in.len("the number of sink records");
                records = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    records.add(t.decoder.sinkRecord(in, SinkRecordFactory.PLAIN));
                }
            } catch (RuntimeException e) {
                // connect-rs starts a fresh encoder after a failed put: so does the decoder.
                t.decoder = new Decoder();
                throw e;
            }
            try {
                t.context.putting(records);
                t.task.put(records);
            } catch (Throwable e) {
                t.decoder = new Decoder();
                long timeout = t.context.timeoutMs;
                if (timeout > 0 && JavaErrors.retriable(e)) {
                    // SinkTaskContext.timeout(ms): Kafka waits that long before it redelivers the batch.
                    Thread.sleep(timeout);
                }
                throw e;
            } finally {
                t.context.putting(null);
            }
            return new byte[0];
        });
    }

    @SuppressWarnings("unchecked")
    private static Object preCommit(Map<String, Object> req) throws Exception {
        SinkTaskRunner t = task(req);
        Map<TopicPartition, OffsetAndMetadata> current = new LinkedHashMap<>();
        Object list = req.get("offsets");
        if (list instanceof List) {
            for (Object o : (List<Object>) list) {
                Map<String, Object> m = (Map<String, Object>) o;
                current.put(new TopicPartition((String) m.get("topic"), ((Number) m.get("partition")).intValue()),
                    new OffsetAndMetadata(((Number) m.get("offset")).longValue()));
            }
        }
        Map<TopicPartition, OffsetAndMetadata> safe = t.thread.call(() -> t.task.preCommit(current));
        List<Object> out = new ArrayList<>();
        if (safe != null) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : safe.entrySet()) {
                if (e.getKey() == null || e.getValue() == null) {
                    continue;
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("topic", e.getKey().topic());
                m.put("partition", e.getKey().partition());
                m.put("offset", e.getValue().offset());
                out.add(m);
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("offsets", out);
        return answer;
    }

    private static final class SinkTaskRunner {
        final String id;
        final PluginThread thread;
        final HostSinkTaskContext context;
        volatile SinkTask task;
        /** Only used on the task's thread. */
        Decoder decoder = new Decoder();

        SinkTaskRunner(String id, Map<String, String> props, PluginThread thread) {
            this.id = id;
            this.thread = thread;
            this.context = new HostSinkTaskContext(id, props);
        }

        void stop() throws Exception {
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

    /** {@code SinkTaskContext} of a task run for connect-rs (see the class comment for what applies). */
    private static final class HostSinkTaskContext implements SinkTaskContext {
        private final String id;
        private final Map<String, String> configs;
        final Set<TopicPartition> assignment = Collections.synchronizedSet(new LinkedHashSet<>());
        volatile long timeoutMs;

        final HostPluginMetrics metrics;

        HostSinkTaskContext(String id, Map<String, String> configs) {
            this.id = id;
            this.configs = configs;
            this.metrics = HostPluginMetrics.ofTask(id);
        }

        @Override
        public Map<String, String> configs() {
            return configs;
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            Map<TopicPartition, Long> rewinds = new LinkedHashMap<>();
            offsets.forEach((tp, offset) -> {
                if (tp != null && offset != null) {
                    rewinds.put(tp, offset);
                } else {
                    System.err.println("sink task " + id + ": cannot rewind " + tp + " to a null offset; ignored");
                }
            });
            if (!rewinds.isEmpty()) {
                consumerRequest("rewind", rewinds.keySet(), rewinds);
            }
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            offset(Map.of(tp, offset));
        }

        @Override
        public void timeout(long timeoutMs) {
            this.timeoutMs = timeoutMs;
        }

        @Override
        public Set<TopicPartition> assignment() {
            synchronized (assignment) {
                return Collections.unmodifiableSet(new LinkedHashSet<>(assignment));
            }
        }

        @Override
        public void pause(TopicPartition... partitions) {
            consumerRequest("pause", assigned("pause", partitions), Map.of());
        }

        @Override
        public void resume(TopicPartition... partitions) {
            consumerRequest("resume", assigned("resume", partitions), Map.of());
        }

        /** {@code partitions}, each assigned to the task, else Kafka Connect's refusal. */
        private List<TopicPartition> assigned(String what, TopicPartition... partitions) {
            List<TopicPartition> out = java.util.Arrays.asList(partitions);
            for (TopicPartition tp : out) {
                if (!assignment.contains(tp)) {
                    throw new org.apache.kafka.connect.errors.IllegalWorkerStateException(
                        "SinkTasks may not " + what + " partitions that are not currently assigned to them.");
                }
            }
            return out;
        }

        /** Sends a {@code SINK_CONSUMER} notify: {@code op} of {@code partitions} (with their offsets). */
        private void consumerRequest(String op, java.util.Collection<TopicPartition> partitions,
                Map<TopicPartition, Long> offsets) {
            List<Object> list = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("topic", tp.topic());
                m.put("partition", tp.partition());
                Long offset = offsets.get(tp);
                if (offset != null) {
                    m.put("offset", offset);
                }
                list.add(m);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("op", op);
            body.put("partitions", list);
            try {
                io.connectrs.host.Main.notifyRust(MessageType.SINK_CONSUMER,
                    Runners.targeted(id, Json.write(body).getBytes(StandardCharsets.UTF_8)));
            } catch (java.io.IOException e) {
                throw new ConnectException("connect-rs is gone", e);
            }
        }

        @Override
        public void requestCommit() {
            try {
                io.connectrs.host.Main.notifyRust(MessageType.SINK_REQUEST_COMMIT,
                    Runners.targeted(id, new byte[0]));
            } catch (java.io.IOException e) {
                throw new ConnectException("connect-rs is gone", e);
            }
        }

        /** The records of the {@code put} running now, by identity; null between puts. */
        private volatile IdentityHashMap<SinkRecord, Integer> batch;
        private volatile List<SinkRecord> batchList;

        void putting(List<SinkRecord> records) {
            if (records == null) {
                batch = null;
                batchList = null;
                return;
            }
            IdentityHashMap<SinkRecord, Integer> byIdentity = new IdentityHashMap<>(records.size() * 2);
            for (int i = 0; i < records.size(); i++) {
                byIdentity.put(records.get(i), i);
            }
            batchList = records;
            batch = byIdentity;
        }

        /** The index of {@code record} in the running put (the same object, else an equal one); -1 if none. */
        private int indexOf(SinkRecord record) {
            IdentityHashMap<SinkRecord, Integer> b = batch;
            List<SinkRecord> list = batchList;
            if (b == null || list == null) {
                return -1;
            }
            Integer i = b.get(record);
            return i != null ? i : list.indexOf(record);
        }

        /**
         * Kafka Connect's reporter: connect-rs handles a reported record of the running {@code put} as a
         * {@code TASK_PUT} failure (log, dead letter queue, {@code errors.tolerance}) when {@code put} returns;
         * the future is complete at once (the dead letter queue is durable before the batch's offsets are
         * committed).
         */
        @Override
        public ErrantRecordReporter errantRecordReporter() {
            return (record, error) -> {
                StringBuilder body = new StringBuilder(256);
                body.append("{\"index\":").append(indexOf(record)).append(",\"error\":");
                body.append(new String(JavaErrors.payload(error), StandardCharsets.UTF_8)).append('}');
                try {
                    io.connectrs.host.Main.notifyRust(MessageType.SINK_ERRANT_RECORD,
                        Runners.targeted(id, body.toString().getBytes(StandardCharsets.UTF_8)));
                } catch (java.io.IOException e) {
                    throw new ConnectException("connect-rs is gone", e);
                }
                return CompletableFuture.completedFuture(null);
            };
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return metrics.get();
        }

    }
}
