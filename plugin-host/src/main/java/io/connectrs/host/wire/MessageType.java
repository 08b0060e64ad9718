package io.connectrs.host.wire;

/**
 * The message type numbers of the wire protocol: the one table on the Java side, kept equal to
 * Rust's {@code plugin_host::frame::MessageType}.
 */
public final class MessageType {
    private MessageType() {}

    /** First frame of every connection (Java to Rust): {@code {"token","role","protocol","pid","java"}}. */
    public static final int HELLO = 1;
    /** A response: the request succeeded, the payload is its answer. */
    public static final int OK = 2;
    /** A response: the request failed, the payload is {@code {"class","message","trace","retriable"}}. */
    public static final int ERR = 3;
    /** Liveness (Rust to Java), answered with an empty {@code OK} by the reader thread itself. */
    public static final int PING = 4;
    /** The JVM's version and pid: {@code {"java","pid"}}. */
    public static final int VERSION = 5;
    /** Plugin scan (ph-scan). */
    public static final int SCAN = 10;
    /** A plugin's config keys (ph-scan). */
    public static final int CONFIG_KEYS = 11;
    /** A plugin's config validation (ph-scan). */
    public static final int VALIDATE = 12;

    /** The protocol version sent in {@code HELLO}. */
    public static final int PROTOCOL_VERSION = 1;

    /** A readable name of {@code type}, for errors. */
    public static String name(int type) {
        switch (type) {
            case HELLO: return "HELLO";
            case OK: return "OK";
            case ERR: return "ERR";
            case PING: return "PING";
            case VERSION: return "VERSION";
            case SCAN: return "SCAN";
            case CONFIG_KEYS: return "CONFIG_KEYS";
            case VALIDATE: return "VALIDATE";
            default: return "type " + type;
        }
    }
}
