package io.connectrs.host.run;

import io.connectrs.host.Handlers;
import io.connectrs.host.json.Json;
import io.connectrs.host.wire.MessageType;
import io.connectrs.host.wire.codec.Buf;
import io.connectrs.host.wire.codec.Decoder;
import io.connectrs.host.wire.codec.Encoder;
import io.connectrs.host.wire.codec.Reader;
import io.connectrs.host.wire.codec.SinkRecordFactory;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs Java transformations and predicates of a connect-rs transformation chain (milestone M4):
 * {@code SMT_START} makes and configures one instance in its location's loader, {@code SMT_APPLY}
 * applies a transformation to one record, {@code SMT_TEST} tests a predicate on one, {@code SMT_CLOSE}
 * closes it. Each instance has its own decoder and encoder (one codec stream per direction and
 * instance); both start afresh after a failed call, as connect-rs's side does. Calls run on the
 * request thread with the thread context class loader swapped to the plugin's, and one at a time
 * per instance (connect-rs's task calls them in order).
 *
 * <p>Record payloads: the instance id (string), a kind byte (0 = source record, 1 = sink record),
 * then the record item. {@code SMT_APPLY} answers 0 (dropped), or 1 and a source record, or 2 and a sink
 * record (whichever the transformation returned);
 * {@code SMT_TEST} answers 0 or 1.
 */
public final class SmtRunners {
    private SmtRunners() {}

    private static final Map<String, Stage> STAGES = new ConcurrentHashMap<>();

    /** Registers the handlers. */
    public static void register() {
        Handlers.register(MessageType.SMT_START, payload -> {
            start(Json.parseObject(new String(payload, StandardCharsets.UTF_8)));
            return new byte[0];
        });
        Handlers.register(MessageType.SMT_APPLY, payload -> call(payload, true));
        Handlers.register(MessageType.SMT_TEST, payload -> call(payload, false));
        Handlers.register(MessageType.SMT_CLOSE, payload -> {
            Map<String, Object> req = Json.parseObject(new String(payload, StandardCharsets.UTF_8));
            Stage s = STAGES.remove((String) req.get("id"));
            if (s != null) {
                s.close();
            }
            return new byte[0];
        });
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void start(Map<String, Object> req) throws Exception {
        String id = (String) req.get("id");
        String className = (String) req.get("class");
        boolean predicate = "predicate".equals(req.get("kind"));
        Map<String, String> props = Runners.props(req);
        ClassLoader loader = Loaders.loaderFor(className, (String) req.get("version"),
            (String) req.get("location"), (List<Object>) req.get("urls"));
        Stage old = STAGES.remove(id);
        if (old != null) {
            old.close();
        }
        Stage s = new Stage(loader);
        s.run(() -> {
            Object o = Class.forName(className, true, loader).getDeclaredConstructor().newInstance();
            if (predicate) {
                if (!(o instanceof Predicate)) {
                    throw new ConnectException(className + " is not a Predicate");
                }
                s.predicate = (Predicate) o;
                s.predicate.configure(props);
            } else {
                if (!(o instanceof Transformation)) {
                    throw new ConnectException(className + " is not a Transformation");
                }
                s.transformation = (Transformation) o;
                s.transformation.configure(props);
            }
            return null;
        });
        STAGES.put(id, s);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static byte[] call(byte[] payload, boolean apply) throws Exception {
        Reader in = new Reader(payload);
        String id = in.str("the stage's id");
        Stage s = STAGES.get(id);
        if (s == null) {
            throw new IllegalStateException("transformation or predicate " + id + " is not running in the plugin host");
        }
        synchronized (s) {
            return s.run(() -> {
                try {
                    int kind = in.u8("a record kind");
                    ConnectRecord record = kind == 0 ? s.decoder.sourceRecord(in)
                        : s.decoder.sinkRecord(in, SinkRecordFactory.PLAIN);
                    Buf out = new Buf(256);
                    if (!apply) {
                        out.put(s.predicate.test(record) ? 1 : 0);
                        return out.toByteArray();
                    }
                    Object result = s.transformation.apply(record);
                    if (result == null) {
                        out.put(0);
                    } else if (result instanceof SinkRecord) {
                        out.put(2);
                        s.encoder.sinkRecord((SinkRecord) result, 0, out);
                    } else if (result instanceof SourceRecord) {
                        out.put(1);
                        s.encoder.sourceRecord((SourceRecord) result, out);
                    } else {
                        throw new ConnectException("the transformation returned a " + result.getClass().getName()
                            + ", neither a SourceRecord nor a SinkRecord");
                    }
                    return out.toByteArray();
                } catch (Throwable e) {
                    // connect-rs starts a fresh encoder and decoder after a failed call: so does the host.
                    s.decoder = new Decoder();
                    s.encoder = new Encoder();
                    throw e;
                }
            });
        }
    }

    @SuppressWarnings("rawtypes")
    private static final class Stage {
        final ClassLoader loader;
        volatile Transformation transformation;
        volatile Predicate predicate;
        Decoder decoder = new Decoder();
        Encoder encoder = new Encoder();

        Stage(ClassLoader loader) {
            this.loader = loader;
        }

        /** Runs {@code call} with the plugin's loader as the thread context class loader (Kafka's LoaderSwap). */
        <T> T run(Loaders.Call<T> call) throws Exception {
            return Loaders.withContextLoader(loader, call);
        }

        void close() throws Exception {
            run(() -> {
                if (transformation != null) {
                    transformation.close();
                }
                if (predicate != null) {
                    predicate.close();
                }
                return null;
            });
        }
    }
}
