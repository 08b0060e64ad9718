package io.connectrs.host.wire.codec;

/** Tag bytes of the record encoding (the table is in connect-rs's {@code plugin_host::codec}). */
public final class Tags {
    private Tags() {
    }

    /** A table holding more entries than this is reset before the next item. */
    public static final int MAX_INTERNED = 8192;
    /** Deepest nesting of values and schemas accepted. */
    public static final int MAX_DEPTH = 256;

    public static final int SCHEMA_DEF = 0x01;
    public static final int PARTITION_DEF = 0x02;
    public static final int RESET = 0x03;
    public static final int SOURCE_RECORD = 0x10;
    public static final int SINK_RECORD = 0x11;
    public static final int SCHEMA_AND_VALUE = 0x12;
    public static final int OFFSET_MAP = 0x13;

    public static final int T_NULL = 0;
    public static final int T_INT8 = 1;
    public static final int T_INT16 = 2;
    public static final int T_INT32 = 3;
    public static final int T_INT64 = 4;
    public static final int T_FLOAT32 = 5;
    public static final int T_FLOAT64 = 6;
    public static final int T_FALSE = 7;
    public static final int T_TRUE = 8;
    public static final int T_STRING = 9;
    public static final int T_BYTES = 10;
    public static final int T_ARRAY = 11;
    public static final int T_MAP = 12;
    public static final int T_STRUCT = 13;

    public static final int F_OPTIONAL = 0x01;
    public static final int F_DEFAULT = 0x02;
    public static final int F_NAME = 0x04;
    public static final int F_VERSION = 0x08;
    public static final int F_DOC = 0x10;
    public static final int F_PARAMS = 0x20;
    static final int F_ALL = 0x3f;
}
