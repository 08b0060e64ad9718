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

    /** Start a connector: {@code {"conn","class","version","location","urls","props"}} → {@code {"task_class"}}. */
    public static final int CONN_START = 20;
    /** A started connector's task configurations: {@code {"conn","max_tasks"}} → {@code {"configs":[{..}]}}. */
    public static final int CONN_TASK_CONFIGS = 21;
    /** Stop a connector: {@code {"conn"}}. */
    public static final int CONN_STOP = 22;
    /** Notify (Java to Rust), target the connector: {@code ConnectorContext.requestTaskReconfiguration()}. */
    public static final int CONN_RECONFIGURE = 23;
    /** Notify (Java to Rust), target the connector: {@code ConnectorContext.raiseError(e)}, body the ERR JSON. */
    public static final int CONN_RAISE_ERROR = 24;
    /** Start a source task: {@code {"task","conn","class","version","location","urls","props"}}. */
    public static final int TASK_START = 30;
    /** A source task's {@code poll()}: {@code {"task"}} → varint count, then that many SOURCE_RECORD items. */
    public static final int TASK_POLL = 31;
    /** A source task's {@code commit()}: {@code {"task"}}. */
    public static final int TASK_COMMIT = 32;
    /** Stop a source task: {@code {"task"}}. */
    public static final int TASK_STOP = 33;
    /**
     * A source task's {@code commitRecord(record, metadata)} for polled records, numbered in the order the
     * {@code TASK_POLL} answers gave them (from 0): {@code {"task","records":[{"n","topic","partition","offset",
     * "timestamp"} | {"n"}]}} ({@code {"n"}}: dropped, null metadata). Sent only when {@code TASK_START}
     * answered {@code "commit_record": true}.
     */
    public static final int TASK_COMMIT_RECORDS = 39;
    /**
     * A fresh (not started) source connector's {@code exactlyOnceSupport(props)}:
     * {@code {"class","version","location","urls","props"}} → {@code {"support":"SUPPORTED"|"UNSUPPORTED"|null}}.
     */
    public static final int CONN_EOS_SUPPORT = 48;
    /**
     * A fresh connector's {@code alterOffsets(props, offsets)}: as {@link #CONN_EOS_SUPPORT} with
     * {@code "source":[{"partition","offset"}]} or {@code "sink":[{"topic","partition","offset"}]} → {@code {"handled"}}.
     */
    public static final int CONN_ALTER_OFFSETS = 49;
    /**
     * The plugins' metrics (KIP-877 {@code pluginMetrics()}): {@code {}} →
     * {@code [{"name","tags":{..},"value"}]}, each numeric metric of group {@code plugins}.
     */
    public static final int PLUGIN_METRICS = 50;
    /**
     * Request (Java to Rust), target the task: its {@code OffsetStorageReader}; body varint count + OFFSET_MAP
     * items (the partitions), answered by varint count + OFFSET_MAP items (each offset or null).
     */
    public static final int OFFSETS_READ = 34;
    /** Start a sink task: {@code {"task","conn","class","version","location","urls","props"}}. */
    public static final int SINK_START = 25;
    /** A sink task's {@code open(partitions)}: {@code {"task","partitions":[{"topic","partition"}]}}. */
    public static final int SINK_OPEN = 26;
    /** A sink task's {@code put(records)}: task id (string), varint count, that many SINK_RECORD items. */
    public static final int SINK_PUT = 27;
    /**
     * A sink task's {@code preCommit(offsets)}: {@code {"task","offsets":[{"topic","partition","offset"}]}} →
     * {@code {"offsets":[..]}} (the offsets safe to commit).
     */
    public static final int SINK_PRE_COMMIT = 28;
    /** A sink task's {@code close(partitions)}: {@code {"task","partitions":[..]}}. */
    public static final int SINK_CLOSE = 29;
    /** Stop a sink task: {@code {"task"}}. */
    public static final int SINK_STOP = 35;
    /** Notify (Java to Rust), target the sink task: {@code SinkTaskContext.requestCommit()}. */
    public static final int SINK_REQUEST_COMMIT = 36;
    /**
     * Notify (Java to Rust), target the sink task: {@code ErrantRecordReporter.report(record, error)} during
     * {@code put}: {@code {"index","error"}} (the record's index in the put batch, -1 when none; the error as
     * in an ERR payload).
     */
    public static final int SINK_ERRANT_RECORD = 37;
    /**
     * Notify (Java to Rust), target the sink task: {@code SinkTaskContext.offset}, {@code pause} or
     * {@code resume}: {@code {"op":"rewind"|"pause"|"resume","partitions":[{"topic","partition"[,"offset"]}]}}.
     */
    public static final int SINK_CONSUMER = 38;
    /** Make and configure a transformation or predicate: {@code {"id","kind","class","version","location","urls","props"}}. */
    public static final int SMT_START = 40;
    /** A transformation's {@code apply(record)}: id, kind byte, record item; answers 0 (dropped), 1 + source or 2 + sink record. */
    public static final int SMT_APPLY = 41;
    /** A predicate's {@code test(record)}: id, kind byte, record item; answers 0 or 1. */
    public static final int SMT_TEST = 42;
    /** Close a transformation or predicate: {@code {"id"}}. */
    public static final int SMT_CLOSE = 43;
    /** Make and configure a converter: {@code {"id","class","version","location","urls","props","is_key"}}. */
    public static final int CONV_START = 44;
    /** A converter's {@code fromConnectData}: id, topic, schema and value item; answers 0 (null) or 1 + bytes. */
    public static final int CONV_FROM_CONNECT = 45;
    /** A converter's {@code toConnectData}: id, topic, 0 (null) or 1 + bytes; answers a schema and value item. */
    public static final int CONV_TO_CONNECT = 46;
    /** Close a converter: {@code {"id"}}. */
    public static final int CONV_CLOSE = 47;

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
            case CONN_START: return "CONN_START";
            case CONN_TASK_CONFIGS: return "CONN_TASK_CONFIGS";
            case CONN_STOP: return "CONN_STOP";
            case CONN_RECONFIGURE: return "CONN_RECONFIGURE";
            case CONN_RAISE_ERROR: return "CONN_RAISE_ERROR";
            case TASK_START: return "TASK_START";
            case TASK_POLL: return "TASK_POLL";
            case TASK_COMMIT: return "TASK_COMMIT";
            case TASK_STOP: return "TASK_STOP";
            case TASK_COMMIT_RECORDS: return "TASK_COMMIT_RECORDS";
            case CONN_EOS_SUPPORT: return "CONN_EOS_SUPPORT";
            case CONN_ALTER_OFFSETS: return "CONN_ALTER_OFFSETS";
            case PLUGIN_METRICS: return "PLUGIN_METRICS";
            case OFFSETS_READ: return "OFFSETS_READ";
            case SINK_START: return "SINK_START";
            case SINK_OPEN: return "SINK_OPEN";
            case SINK_PUT: return "SINK_PUT";
            case SINK_PRE_COMMIT: return "SINK_PRE_COMMIT";
            case SINK_CLOSE: return "SINK_CLOSE";
            case SINK_STOP: return "SINK_STOP";
            case SINK_REQUEST_COMMIT: return "SINK_REQUEST_COMMIT";
            case SINK_ERRANT_RECORD: return "SINK_ERRANT_RECORD";
            case SINK_CONSUMER: return "SINK_CONSUMER";
            case SMT_START: return "SMT_START";
            case SMT_APPLY: return "SMT_APPLY";
            case SMT_TEST: return "SMT_TEST";
            case SMT_CLOSE: return "SMT_CLOSE";
            case CONV_START: return "CONV_START";
            case CONV_FROM_CONNECT: return "CONV_FROM_CONNECT";
            case CONV_TO_CONNECT: return "CONV_TO_CONNECT";
            case CONV_CLOSE: return "CONV_CLOSE";
            default: return "type " + type;
        }
    }
}
