package io.connectrs.host;

import io.connectrs.host.scan.ScanService;
import io.connectrs.host.wire.MessageType;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The request handlers by message type. Services register theirs before the host connects
 * ({@link Main} calls {@link #registerBuiltins()}); a request of a type without a handler is
 * answered with an {@code ERR}.
 */
public final class Handlers {
    private Handlers() {}

    private static final ConcurrentHashMap<Integer, Handler> HANDLERS = new ConcurrentHashMap<>();

    /** Registers {@code h} for {@code type}, replacing any earlier one. */
    public static void register(int type, Handler h) {
        HANDLERS.put(type, h);
    }

    /** The handler of {@code type}, or {@code null}. */
    public static Handler get(int type) {
        return HANDLERS.get(type);
    }

    /** The host's own handlers. */
    static void registerBuiltins() {
        register(MessageType.VERSION, payload -> {
            StringBuilder out = new StringBuilder("{\"java\":");
            io.connectrs.host.wire.JavaErrors.quote(out, System.getProperty("java.version"));
            out.append(",\"vendor\":");
            io.connectrs.host.wire.JavaErrors.quote(out, System.getProperty("java.vendor"));
            out.append(",\"pid\":").append(ProcessHandle.current().pid());
            out.append('}');
            return out.toString().getBytes(StandardCharsets.UTF_8);
        });
        register(MessageType.SCAN, jsonService(ScanService::scan));
        register(MessageType.CONFIG_KEYS, jsonService(ScanService::configKeys));
        register(MessageType.VALIDATE, jsonService(ScanService::validate));
        io.connectrs.host.run.Runners.register();
        io.connectrs.host.run.SinkRunners.register();
        io.connectrs.host.run.SmtRunners.register();
        io.connectrs.host.run.ConverterRunners.register();
        io.connectrs.host.run.HostPluginMetrics.register();
    }

    /** A service taking and answering one JSON document. */
    interface JsonService {
        String call(String request) throws Exception;
    }

    private static Handler jsonService(JsonService service) {
        return payload -> service.call(new String(payload, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
    }
}
