package io.connectrs.host.run;

import io.connectrs.host.Handlers;
import io.connectrs.host.json.Json;
import io.connectrs.host.wire.MessageType;
import io.connectrs.host.wire.codec.Buf;
import io.connectrs.host.wire.codec.Decoder;
import io.connectrs.host.wire.codec.Encoder;
import io.connectrs.host.wire.codec.Reader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs Java converters for connect-rs's tasks: {@code CONV_START} makes one instance in its location's
 * loader and calls {@code configure(props, isKey)}, {@code CONV_FROM_CONNECT} and {@code CONV_TO_CONNECT}
 * convert one key or value, {@code CONV_CLOSE} closes it. Each instance has its own codec streams,
 * which start afresh after a failed call as connect-rs's side does; calls run on the request thread
 * with the context class loader swapped to the plugin's, one at a time per instance.
 *
 * <p>The converter gets empty headers: a converter that adds headers to the record it serializes is
 * refused with an error (connect-rs does not carry headers a converter adds), never ignored.
 *
 * <p>A header converter ({@code "header": true} at {@code CONV_START}) is configured with {@code configure(props)};
 * its calls carry the header's key after the topic ({@code fromConnectHeader} / {@code toConnectHeader}).
 */
public final class ConverterRunners {
    private ConverterRunners() {}

    private static final Map<String, Instance> INSTANCES = new ConcurrentHashMap<>();

    /** Registers the handlers. */
    public static void register() {
        Handlers.register(MessageType.CONV_START, payload -> {
            start(Json.parseObject(new String(payload, StandardCharsets.UTF_8)));
            return new byte[0];
        });
        Handlers.register(MessageType.CONV_FROM_CONNECT, payload -> call(payload, true));
        Handlers.register(MessageType.CONV_TO_CONNECT, payload -> call(payload, false));
        Handlers.register(MessageType.CONV_CLOSE, payload -> {
            Map<String, Object> req = Json.parseObject(new String(payload, StandardCharsets.UTF_8));
            Instance i = INSTANCES.remove((String) req.get("id"));
            if (i != null) {
                i.close();
            }
            return new byte[0];
        });
    }

    @SuppressWarnings("unchecked")
    private static void start(Map<String, Object> req) throws Exception {
        String id = (String) req.get("id");
        String className = (String) req.get("class");
        boolean isKey = Boolean.TRUE.equals(req.get("is_key"));
        boolean header = Boolean.TRUE.equals(req.get("header"));
        Map<String, String> props = Runners.props(req);
        ClassLoader loader = Loaders.loaderFor(className, (String) req.get("version"),
            (String) req.get("location"), (List<Object>) req.get("urls"));
        Instance old = INSTANCES.remove(id);
        if (old != null) {
            old.close();
        }
        Instance i = new Instance(loader);
        i.run(() -> {
            Object o = Class.forName(className, true, loader).getDeclaredConstructor().newInstance();
            if (header) {
                if (!(o instanceof HeaderConverter)) {
                    throw new ConnectException(className + " is not a HeaderConverter");
                }
                i.headerConverter = (HeaderConverter) o;
                // As Kafka Connect's Plugins.newHeaderConverter: the converter type is said.
                Map<String, String> headerProps = new java.util.HashMap<>(props);
                headerProps.put("converter.type", "header");
                i.headerConverter.configure(headerProps);
                return null;
            }
            if (!(o instanceof Converter)) {
                throw new ConnectException(className + " is not a Converter");
            }
            i.converter = (Converter) o;
            i.converter.configure(props, isKey);
            return null;
        });
        INSTANCES.put(id, i);
    }

    private static byte[] call(byte[] payload, boolean fromConnect) throws Exception {
        Reader in = new Reader(payload);
        String id = in.str("the converter's id");
        Instance i = INSTANCES.get(id);
        if (i == null) {
            throw new IllegalStateException("converter " + id + " is not running in the plugin host");
        }
        synchronized (i) {
            return i.run(() -> {
                try {
                    String topic = in.str("a topic");
                    Buf out = new Buf(256);
                    if (i.headerConverter != null) {
                        return header(i, topic, in, out, fromConnect);
                    }
                    RecordHeaders headers = new RecordHeaders();
                    if (fromConnect) {
                        SchemaAndValue data = i.decoder.schemaAndValue(in);
                        byte[] bytes = i.converter.fromConnectData(topic, headers, data.schema(), data.value());
                        if (headers.toArray().length > 0) {
                            throw new ConnectException("the converter " + i.converter.getClass().getName()
                                + " added headers to the record of topic " + topic
                                + "; connect-rs does not carry headers a converter adds");
                        }
                        if (bytes == null) {
                            out.put(0);
                        } else {
                            out.put(1);
                            out.putBytes(bytes);
                        }
                    } else {
                        byte[] bytes = in.u8("a null marker") == 0 ? null : in.bytes("the serialized data");
                        SchemaAndValue data = i.converter.toConnectData(topic, headers, bytes);
                        if (data == null) {
                            data = SchemaAndValue.NULL;
                        }
                        i.encoder.schemaAndValue(data.schema(), data.value(), out);
                    }
                    return out.toByteArray();
                } catch (Throwable e) {
                    // connect-rs starts fresh codec streams after a failed call: so does the host.
                    i.decoder = new Decoder();
                    i.encoder = new Encoder();
                    throw e;
                }
            });
        }
    }

    /** A header converter's call: the header's key, then as a converter's. */
    private static byte[] header(Instance i, String topic, Reader in, Buf out, boolean fromConnect) throws Exception {
        String key = in.str("a header key");
        if (fromConnect) {
            SchemaAndValue data = i.decoder.schemaAndValue(in);
            byte[] bytes = i.headerConverter.fromConnectHeader(topic, key, data.schema(), data.value());
            if (bytes == null) {
                out.put(0);
            } else {
                out.put(1);
                out.putBytes(bytes);
            }
        } else {
            byte[] bytes = in.u8("a null marker") == 0 ? null : in.bytes("the serialized header");
            SchemaAndValue data = i.headerConverter.toConnectHeader(topic, key, bytes);
            if (data == null) {
                data = SchemaAndValue.NULL;
            }
            i.encoder.schemaAndValue(data.schema(), data.value(), out);
        }
        return out.toByteArray();
    }

    private static final class Instance {
        final ClassLoader loader;
        volatile Converter converter;
        volatile HeaderConverter headerConverter;
        Decoder decoder = new Decoder();
        Encoder encoder = new Encoder();

        Instance(ClassLoader loader) {
            this.loader = loader;
        }

        /** Runs {@code call} with the plugin's loader as the thread context class loader (Kafka's LoaderSwap). */
        <T> T run(Loaders.Call<T> call) throws Exception {
            return Loaders.withContextLoader(loader, call);
        }

        void close() throws Exception {
            run(() -> {
                if (converter instanceof AutoCloseable) {
                    ((AutoCloseable) converter).close();
                }
                if (headerConverter != null) {
                    headerConverter.close();
                }
                return null;
            });
        }
    }
}
