package io.connectrs.host.wire.codec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The receiving side of one connection-direction: the definitions seen so far. Builds real Connect objects
 * ({@link ConnectSchema}, {@link Struct}, logical values through {@code Decimal/Date/Time/Timestamp.toLogical}).
 * Malformed input is a {@link CodecException}. Not thread-safe.
 */
public final class Decoder {
    private static final String ITEM_TAGS = "0x01 (SCHEMA_DEF), 0x02 (PARTITION_DEF), 0x03 (RESET), "
        + "0x10 (SOURCE_RECORD), 0x11 (SINK_RECORD), 0x12 (SCHEMA_AND_VALUE), 0x13 (OFFSET_MAP)";

    private final List<Schema> schemas = new ArrayList<>();
    private long schemaFirst = 1;
    private final List<Map<String, Object>> partitions = new ArrayList<>();
    private long partitionFirst = 1;

    private static String itemName(int tag) {
        switch (tag) {
            case Tags.SOURCE_RECORD: return "0x10 (SOURCE_RECORD)";
            case Tags.SINK_RECORD: return "0x11 (SINK_RECORD)";
            case Tags.SCHEMA_AND_VALUE: return "0x12 (SCHEMA_AND_VALUE)";
            default: return "0x13 (OFFSET_MAP)";
        }
    }

    private void prelude(Reader in, int want) {
        while (true) {
            int offset = in.position();
            int tag = in.u8("an item tag");
            if (tag == Tags.SCHEMA_DEF) {
                readSchemaDef(in);
            } else if (tag == Tags.PARTITION_DEF) {
                int idOffset = in.position();
                long id = in.u32("a source partition definition's id");
                checkNext("source partition", id, partitionFirst + partitions.size(), idOffset);
                partitions.add(Collections.unmodifiableMap(offsetMap("source partition", readValue(null, in, 0))));
            } else if (tag == Tags.RESET) {
                schemaFirst += schemas.size();
                schemas.clear();
                partitionFirst += partitions.size();
                partitions.clear();
            } else if (tag == want) {
                return;
            } else {
                boolean isItem = tag == Tags.SOURCE_RECORD || tag == Tags.SINK_RECORD
                    || tag == Tags.SCHEMA_AND_VALUE || tag == Tags.OFFSET_MAP;
                throw new CodecException(String.format("unknown item tag 0x%02x at byte %d; expected %s",
                    tag, offset, isItem ? itemName(want) : ITEM_TAGS));
            }
        }
    }

    private static void checkNext(String kind, long id, long expected, int offset) {
        if (id != expected) {
            throw new CodecException(kind + " definition at byte " + offset + " has id " + id
                + ", expected the next id " + expected);
        }
    }

    private static <T> T lookup(String kind, List<T> table, long first, long id, int offset) {
        long i = id - first;
        if (i < 0 || i >= table.size()) {
            throw new CodecException("unknown " + kind + " id " + id + " at byte " + offset + "; defined ids are "
                + first + ".." + (first + table.size()) + " (a definition must come before its first use)");
        }
        return table.get((int) i);
    }

    private Schema schemaId(Reader in, String expected) {
        int offset = in.position();
        long id = in.u32(expected);
        return id == 0 ? null : lookup("schema", schemas, schemaFirst, id, offset);
    }

    private Schema child(Reader in, String expected) {
        int offset = in.position();
        Schema s = schemaId(in, expected);
        if (s == null) {
            throw new CodecException("invalid schema definition at byte " + offset + ": " + expected
                + " is 0; expected the id of a defined schema");
        }
        return s;
    }

    private static Schema.Type typeOf(int code, int offset) {
        switch (code) {
            case 0: return Schema.Type.INT8;
            case 1: return Schema.Type.INT16;
            case 2: return Schema.Type.INT32;
            case 3: return Schema.Type.INT64;
            case 4: return Schema.Type.FLOAT32;
            case 5: return Schema.Type.FLOAT64;
            case 6: return Schema.Type.BOOLEAN;
            case 7: return Schema.Type.STRING;
            case 8: return Schema.Type.BYTES;
            case 9: return Schema.Type.ARRAY;
            case 10: return Schema.Type.MAP;
            case 11: return Schema.Type.STRUCT;
            default:
                throw new CodecException(String.format(
                    "unknown schema type tag 0x%02x at byte %d; expected 0 (INT8) .. 11 (STRUCT)", code, offset));
        }
    }

    private void readSchemaDef(Reader in) {
        int offset = in.position();
        long id = in.u32("a schema definition's id");
        checkNext("schema", id, schemaFirst + schemas.size(), offset);
        int typeOffset = in.position();
        Schema.Type type = typeOf(in.u8("a schema type"), typeOffset);
        int flagsOffset = in.position();
        int flags = in.u8("schema flags");
        if ((flags & ~Tags.F_ALL) != 0) {
            throw new CodecException(String.format("invalid schema definition at byte %d: unknown flag bits 0x%02x; "
                + "expected a combination of 0x01 (optional), 0x02 (default), 0x04 (name), 0x08 (version), "
                + "0x10 (doc), 0x20 (parameters)", flagsOffset, flags));
        }
        boolean optional = (flags & Tags.F_OPTIONAL) != 0;
        String name = (flags & Tags.F_NAME) != 0 ? in.str("a schema name") : null;
        Integer version = (flags & Tags.F_VERSION) != 0 ? in.i32("a schema version") : null;
        String doc = (flags & Tags.F_DOC) != 0 ? in.str("a schema doc") : null;
        Map<String, String> params = null;
        if ((flags & Tags.F_PARAMS) != 0) {
            int n = in.len("the number of schema parameters");
            Map<String, String> p = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String k = in.str("a schema parameter name");
                p.put(k, in.str("a schema parameter value"));
            }
            params = Collections.unmodifiableMap(p);
        }
        List<Field> fields = null;
        Schema keySchema = null;
        Schema valueSchema = null;
        switch (type) {
            case STRUCT:
                int n = in.len("the number of struct fields");
                fields = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    String fieldName = in.str("a struct field name");
                    fields.add(new Field(fieldName, i, child(in, "a struct field's schema id")));
                }
                break;
            case ARRAY:
                valueSchema = child(in, "an array's item schema id");
                break;
            case MAP:
                keySchema = child(in, "a map's key schema id");
                valueSchema = child(in, "a map's value schema id");
                break;
            default:
                break;
        }
        Schema schema = new ConnectSchema(type, optional, null, name, version, doc, params, fields, keySchema,
            valueSchema);
        if ((flags & Tags.F_DEFAULT) != 0) {
            Object dflt = readValue(schema, in, 0);
            schema = new ConnectSchema(type, optional, dflt, name, version, doc, params, fields, keySchema,
                valueSchema);
        }
        schemas.add(schema);
    }

    private static boolean named(Schema schema, String logicalName) {
        return schema != null && logicalName.equals(schema.name());
    }

    /** Reads a value; {@code schema} (may be null) turns raw logical values into BigDecimal/Date. */
    private Object readValue(Schema schema, Reader in, int depth) {
        if (depth > Tags.MAX_DEPTH) {
            throw new CodecException("values nested deeper than " + Tags.MAX_DEPTH + " levels");
        }
        int offset = in.position();
        int tag = in.u8("a value tag");
        switch (tag) {
            case Tags.T_NULL:
                return null;
            case Tags.T_FALSE:
                return Boolean.FALSE;
            case Tags.T_TRUE:
                return Boolean.TRUE;
            case Tags.T_INT8:
                return (byte) in.u8("an INT8 value");
            case Tags.T_INT16: {
                int v = in.i32("an INT16 value");
                if (v != (short) v) {
                    throw new CodecException("invalid varint at byte " + (offset + 1) + ": an INT16 value does not fit");
                }
                return (short) v;
            }
            case Tags.T_INT32: {
                int v = in.i32("an INT32 value");
                if (named(schema, Date.LOGICAL_NAME)) {
                    return Date.toLogical(schema, v);
                }
                if (named(schema, Time.LOGICAL_NAME)) {
                    return Time.toLogical(schema, v);
                }
                return v;
            }
            case Tags.T_INT64: {
                long v = in.i64("an INT64 value");
                return named(schema, Timestamp.LOGICAL_NAME) ? Timestamp.toLogical(schema, v) : (Object) v;
            }
            case Tags.T_FLOAT32:
                return in.f32("a FLOAT32 value");
            case Tags.T_FLOAT64:
                return in.f64("a FLOAT64 value");
            case Tags.T_STRING:
                return in.str("a STRING value");
            case Tags.T_BYTES: {
                byte[] b = in.bytes("a BYTES value");
                return named(schema, Decimal.LOGICAL_NAME) ? Decimal.toLogical(schema, b) : b;
            }
            case Tags.T_ARRAY: {
                int n = in.len("the number of ARRAY items");
                Schema items = schema != null && schema.type() == Schema.Type.ARRAY ? schema.valueSchema() : null;
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(readValue(items, in, depth + 1));
                }
                return list;
            }
            case Tags.T_MAP: {
                int n = in.len("the number of MAP entries");
                boolean typed = schema != null && schema.type() == Schema.Type.MAP;
                Schema ks = typed ? schema.keySchema() : null;
                Schema vs = typed ? schema.valueSchema() : null;
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = readValue(ks, in, depth + 1);
                    map.put(k, readValue(vs, in, depth + 1));
                }
                return map;
            }
            case Tags.T_STRUCT: {
                int idOffset = in.position();
                Schema s = schemaId(in, "a STRUCT value's schema id");
                if (s == null) {
                    throw new CodecException("invalid schema definition at byte " + idOffset
                        + ": a STRUCT value has schema id 0; expected the id of a STRUCT schema");
                }
                if (s.type() != Schema.Type.STRUCT) {
                    throw new CodecException("invalid schema definition at byte " + idOffset + ": a STRUCT value refers to a "
                        + s.type() + " schema; expected a STRUCT schema");
                }
                Struct st = new Struct(s);
                for (Field f : s.fields()) {
                    Object v = readValue(f.schema(), in, depth + 1);
                    if (v != null) {
                        st.put(f, v);
                    }
                }
                return st;
            }
            default:
                throw new CodecException(String.format(
                    "unknown value tag 0x%02x at byte %d; expected 0 (NULL) .. 13 (STRUCT)", tag, offset));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> offsetMap(String what, Object v) {
        if (!(v instanceof Map)) {
            throw new CodecException(what + ": expected a map with string keys, got "
                + (v == null ? "null" : v.getClass().getSimpleName()));
        }
        for (Object k : ((Map<Object, Object>) v).keySet()) {
            if (!(k instanceof String)) {
                throw new CodecException(what + ": expected string keys, got a "
                    + (k == null ? "null" : k.getClass().getSimpleName()) + " key");
            }
        }
        return (Map<String, Object>) v;
    }

    private static final class Common {
        String topic;
        Integer partition;
        Schema keySchema;
        Object key;
        Schema valueSchema;
        Object value;
        Long timestamp;
        ConnectHeaders headers;
    }

    private Common connectRecord(Reader in) {
        Common c = new Common();
        c.topic = in.str("a record's topic");
        c.partition = in.optI32("a record's Kafka partition");
        c.keySchema = schemaId(in, "a record's key schema id");
        c.key = readValue(c.keySchema, in, 0);
        c.valueSchema = schemaId(in, "a record's value schema id");
        c.value = readValue(c.valueSchema, in, 0);
        c.timestamp = in.optI64("a record's timestamp");
        int n = in.len("the number of headers");
        c.headers = new ConnectHeaders();
        for (int i = 0; i < n; i++) {
            String key = in.str("a header key");
            Schema s = schemaId(in, "a header's schema id");
            c.headers.add(key, new SchemaAndValue(s, readValue(s, in, 0)));
        }
        return c;
    }

    /** Reads a source record (and the definitions before it). */
    public SourceRecord sourceRecord(Reader in) {
        prelude(in, Tags.SOURCE_RECORD);
        Common c = connectRecord(in);
        int offset = in.position();
        long id = in.u32("a source partition id");
        Map<String, Object> partition = id == 0 ? null
            : lookup("source partition", partitions, partitionFirst, id, offset);
        Object raw = readValue(null, in, 0);
        Map<String, Object> sourceOffset = raw == null ? null : offsetMap("source offset", raw);
        return new SourceRecord(partition, sourceOffset, c.topic, c.partition, c.keySchema, c.key, c.valueSchema,
            c.value, c.timestamp, c.headers);
    }

    /** Reads a sink record; {@code factory} makes the record (e.g. one keeping the reference). */
    public SinkRecord sinkRecord(Reader in, SinkRecordFactory factory) {
        prelude(in, Tags.SINK_RECORD);
        int start = in.position();
        Common c = connectRecord(in);
        long kafkaOffset = in.i64("a sink record's Kafka offset");
        int ttOffset = in.position();
        int tt = in.u8("a timestamp type");
        TimestampType timestampType;
        switch (tt) {
            case 0: timestampType = TimestampType.NO_TIMESTAMP_TYPE; break;
            case 1: timestampType = TimestampType.CREATE_TIME; break;
            case 2: timestampType = TimestampType.LOG_APPEND_TIME; break;
            default:
                throw new CodecException(String.format("unknown timestamp type tag 0x%02x at byte %d; "
                    + "expected 0 (none), 1 (create time) or 2 (log append time)", tt, ttOffset));
        }
        String originalTopic = in.str("a sink record's original topic");
        Integer originalPartition = in.optI32("a sink record's original partition");
        long originalOffset = in.i64("a sink record's original offset");
        int recordRef = (int) in.u32("a sink record's record_ref");
        if (c.partition == null) {
            throw new CodecException("sink record at byte " + start + " has no Kafka partition; "
                + "Java's SinkRecord needs one");
        }
        return factory.create(c.topic, c.partition, c.keySchema, c.key, c.valueSchema, c.value, kafkaOffset,
            c.timestamp, timestampType, c.headers, originalTopic, originalPartition, originalOffset, recordRef);
    }

    /** Reads a schema (or null) and a value. */
    public SchemaAndValue schemaAndValue(Reader in) {
        prelude(in, Tags.SCHEMA_AND_VALUE);
        Schema s = schemaId(in, "a schema id");
        return new SchemaAndValue(s, readValue(s, in, 0));
    }

    /** Reads a source partition or offset (or null): integers are Longs, as Kafka Connect reads offsets back. */
    public Map<String, Object> offsetMap(Reader in) {
        prelude(in, Tags.OFFSET_MAP);
        Object v = readValue(null, in, 0);
        return v == null ? null : offsetMap("offset map", v);
    }
}
