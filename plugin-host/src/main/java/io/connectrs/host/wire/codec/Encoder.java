package io.connectrs.host.wire.codec;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The sending side of one connection-direction: gives schemas and source partitions their ids and
 * writes items, byte for byte as connect-rs's {@code plugin_host::codec::Encoder}.
 *
 * <p>Every method appends one complete item (preceded by the definitions it needs) to {@code out}, or,
 * on a {@link DataException}, leaves {@code out} and the tables as they were. Not thread-safe: one per
 * connection and direction.
 */
public final class Encoder {
    private final Interner schemas = new Interner("schema", Tags.SCHEMA_DEF);
    private final Interner partitions = new Interner("source partition", Tags.PARTITION_DEF);
    private final Set<Schema> inProgress = Collections.newSetFromMap(new IdentityHashMap<>());
    private Buf scratch = new Buf(1024);
    /** Where the current item's new definitions go. */
    private Buf defs;

    /** Where in a value an error happened, built while unwinding. */
    private static final class PathException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final List<String> path = new ArrayList<>();

        PathException(String message, Throwable cause) {
            super(message, cause, false, false);
        }

        PathException at(String segment) {
            path.add(segment);
            return this;
        }

        DataException toDataException(String what) {
            StringBuilder sb = new StringBuilder(what);
            if (!path.isEmpty()) {
                sb.append(" field '");
                for (int i = path.size() - 1; i >= 0; i--) {
                    sb.append(path.get(i));
                    if (i > 0 && !path.get(i - 1).startsWith("[")) {
                        sb.append('.');
                    }
                }
                sb.append('\'');
            }
            sb.append(": ").append(getMessage());
            return new DataException(sb.toString(), getCause());
        }
    }

    @FunctionalInterface
    private interface Body {
        void write(Buf body);
    }

    private void item(Buf out, int tag, Body body) {
        int start = out.size();
        long schemaMark = schemas.mark();
        long partitionMark = partitions.mark();
        Interner.Generation schemasBefore = null;
        Interner.Generation partitionsBefore = null;
        if (schemas.size() > Tags.MAX_INTERNED || partitions.size() > Tags.MAX_INTERNED) {
            out.put(Tags.RESET);
            schemasBefore = schemas.reset();
            partitionsBefore = partitions.reset();
        }
        Buf b = scratch;
        b.clear();
        b.put(tag);
        defs = out;
        try {
            body.write(b);
        } catch (RuntimeException e) {
            out.truncate(start);
            schemas.rollback(schemaMark, schemasBefore);
            partitions.rollback(partitionMark, partitionsBefore);
            inProgress.clear();
            throw e;
        } finally {
            defs = null;
        }
        out.put(b.array(), 0, b.size());
    }

    /**
     * Appends a source record. A {@code null} source partition is sent as id 0. Partitions are interned by
     * their encoded bytes only (no identity cache): a task may mutate the map it passed.
     */
    public void sourceRecord(SourceRecord r, Buf out) {
        item(out, Tags.SOURCE_RECORD, body -> {
            connectRecord(r, body);
            Map<String, ?> partition = r.sourcePartition();
            if (partition == null) {
                body.putU32(0);
            } else {
                Buf def = new Buf(64);
                offsetValue("source partition", partition, def);
                body.putU32(partitions.intern(def, defs));
            }
            Map<String, ?> offset = r.sourceOffset();
            if (offset == null) {
                body.put(Tags.T_NULL);
            } else {
                offsetValue("source offset", offset, body);
            }
        });
    }

    /** Appends a sink record with its reference in the batch. */
    public void sinkRecord(SinkRecord r, int recordRef, Buf out) {
        item(out, Tags.SINK_RECORD, body -> {
            connectRecord(r, body);
            body.putI64(r.kafkaOffset());
            body.put(timestampTypeCode(r.timestampType()));
            body.putStr(r.originalTopic() != null ? r.originalTopic() : r.topic());
            body.putOptI32(r.originalKafkaPartition());
            body.putI64(r.originalKafkaOffset());
            body.putU32(recordRef);
        });
    }

    /** Appends a schema (or null) and a value. */
    public void schemaAndValue(Schema schema, Object value, Buf out) {
        item(out, Tags.SCHEMA_AND_VALUE, body -> {
            body.putU32(schemaId(schema, 0));
            value("value", schema, value, body);
        });
    }

    /** Appends a source partition or offset (or null). */
    public void offsetMap(Map<String, ?> map, Buf out) {
        item(out, Tags.OFFSET_MAP, body -> {
            if (map == null) {
                body.put(Tags.T_NULL);
            } else {
                offsetValue("offset map", map, body);
            }
        });
    }

    static int timestampTypeCode(TimestampType t) {
        if (t == TimestampType.CREATE_TIME) {
            return 1;
        }
        if (t == TimestampType.LOG_APPEND_TIME) {
            return 2;
        }
        return 0;
    }

    private void connectRecord(ConnectRecord<?> r, Buf body) {
        body.putStr(r.topic());
        body.putOptI32(r.kafkaPartition());
        body.putU32(schemaId(r.keySchema(), 0));
        value("key", r.keySchema(), r.key(), body);
        body.putU32(schemaId(r.valueSchema(), 0));
        value("value", r.valueSchema(), r.value(), body);
        body.putOptI64(r.timestamp());
        if (r.headers() == null) {
            body.putUvarint(0);
            return;
        }
        body.putUvarint(r.headers().size());
        for (Header h : r.headers()) {
            body.putStr(h.key());
            body.putU32(schemaId(h.schema(), 0));
            try {
                writeValue(h.schema(), h.value(), body, 0, false);
            } catch (PathException e) {
                throw e.toDataException("header '" + h.key() + "'");
            }
        }
    }

    private void value(String what, Schema schema, Object v, Buf out) {
        try {
            writeValue(schema, v, out, 0, false);
        } catch (PathException e) {
            throw e.toDataException(what);
        }
    }

    private void offsetValue(String what, Map<String, ?> map, Buf out) {
        try {
            writeValue(null, map, out, 0, true);
        } catch (PathException e) {
            throw e.toDataException(what);
        }
    }

    static int typeCode(Schema.Type t) {
        switch (t) {
            case INT8: return 0;
            case INT16: return 1;
            case INT32: return 2;
            case INT64: return 3;
            case FLOAT32: return 4;
            case FLOAT64: return 5;
            case BOOLEAN: return 6;
            case STRING: return 7;
            case BYTES: return 8;
            case ARRAY: return 9;
            case MAP: return 10;
            case STRUCT: return 11;
            default: throw new DataException("unknown schema type " + t);
        }
    }

    /** The id of {@code schema} (0 for null), defining it and its children in {@code defs} when new. */
    private int schemaId(Schema schema, int depth) {
        if (schema == null) {
            return 0;
        }
        boolean immutable = schema instanceof ConnectSchema;
        if (immutable) {
            Integer id = schemas.cached(schema);
            if (id != null) {
                return id;
            }
        }
        if (depth > Tags.MAX_DEPTH) {
            throw new DataException("schemas nested deeper than " + Tags.MAX_DEPTH + " levels");
        }
        if (!inProgress.add(schema)) {
            throw new DataException("schema " + schema + " contains itself (its default value or a field has it)");
        }
        try {
            Buf body = new Buf(32);
            body.put(typeCode(schema.type()));
            Object dflt = schema.defaultValue();
            Map<String, String> params = schema.parameters();
            int flags = (schema.isOptional() ? Tags.F_OPTIONAL : 0)
                | (dflt != null ? Tags.F_DEFAULT : 0)
                | (schema.name() != null ? Tags.F_NAME : 0)
                | (schema.version() != null ? Tags.F_VERSION : 0)
                | (schema.doc() != null ? Tags.F_DOC : 0)
                | (params != null ? Tags.F_PARAMS : 0);
            body.put(flags);
            if (schema.name() != null) {
                body.putStr(schema.name());
            }
            if (schema.version() != null) {
                body.putI32(schema.version());
            }
            if (schema.doc() != null) {
                body.putStr(schema.doc());
            }
            if (params != null) {
                body.putUvarint(params.size());
                for (Map.Entry<String, String> e : params.entrySet()) {
                    body.putStr(e.getKey());
                    body.putStr(e.getValue());
                }
            }
            switch (schema.type()) {
                case STRUCT:
                    List<Field> fields = schema.fields();
                    body.putUvarint(fields.size());
                    for (Field f : fields) {
                        body.putStr(f.name());
                        body.putU32(schemaId(f.schema(), depth + 1));
                    }
                    break;
                case ARRAY:
                    body.putU32(schemaId(child(schema, schema.valueSchema(), "item schema"), depth + 1));
                    break;
                case MAP:
                    int k = schemaId(child(schema, schema.keySchema(), "key schema"), depth + 1);
                    int v = schemaId(child(schema, schema.valueSchema(), "value schema"), depth + 1);
                    body.putU32(k);
                    body.putU32(v);
                    break;
                default:
                    break;
            }
            if (dflt != null) {
                try {
                    writeValue(schema, dflt, body, depth + 1, false);
                } catch (PathException e) {
                    throw e.toDataException("default value of " + schema);
                }
            }
            int id = schemas.intern(body, defs);
            if (immutable) {
                schemas.remember(schema, id);
            }
            return id;
        } finally {
            inProgress.remove(schema);
        }
    }

    private static Schema child(Schema parent, Schema child, String what) {
        if (child == null) {
            throw new DataException("schema cannot be sent: " + parent.type() + " schema"
                + (parent.name() != null ? " '" + parent.name() + "'" : "") + " has no " + what);
        }
        return child;
    }

    private static boolean named(Schema schema, String logicalName) {
        return schema != null && logicalName.equals(schema.name());
    }

    private static PathException unsupported(String message) {
        return new PathException(message, null);
    }

    /**
     * Writes a value. {@code schema} may be null (schemaless); it serves to turn logical values
     * (BigDecimal, java.util.Date) into their raw form. {@code offsets}: a source partition or offset,
     * where a Struct cannot go (Kafka Connect stores them as schemaless JSON).
     */
    private void writeValue(Schema schema, Object v, Buf out, int depth, boolean offsets) {
        if (depth > Tags.MAX_DEPTH) {
            throw unsupported("values nested deeper than " + Tags.MAX_DEPTH + " levels");
        }
        if (v == null) {
            out.put(Tags.T_NULL);
        } else if (v instanceof String) {
            out.put(Tags.T_STRING);
            out.putStr((String) v);
        } else if (v instanceof Long) {
            out.put(Tags.T_INT64);
            out.putI64((Long) v);
        } else if (v instanceof Integer) {
            out.put(Tags.T_INT32);
            out.putI32((Integer) v);
        } else if (v instanceof Struct) {
            if (offsets) {
                Schema s = ((Struct) v).schema();
                throw unsupported("a Struct (schema " + (s.name() != null ? s.name() : "without name")
                    + ") cannot be stored in Kafka Connect's offsets, which are schemaless JSON");
            }
            Struct st = (Struct) v;
            Schema s = st.schema();
            int id = schemaId(s, depth + 1);
            out.put(Tags.T_STRUCT);
            out.putU32(id);
            for (Field f : s.fields()) {
                try {
                    writeValue(f.schema(), st.getWithoutDefault(f.name()), out, depth + 1, false);
                } catch (PathException e) {
                    throw e.at(f.name());
                }
            }
        } else if (v instanceof Boolean) {
            out.put((Boolean) v ? Tags.T_TRUE : Tags.T_FALSE);
        } else if (v instanceof Double) {
            out.put(Tags.T_FLOAT64);
            out.putDouble((Double) v);
        } else if (v instanceof Float) {
            out.put(Tags.T_FLOAT32);
            out.putFloat((Float) v);
        } else if (v instanceof Short) {
            out.put(Tags.T_INT16);
            out.putI32((Short) v);
        } else if (v instanceof Byte) {
            out.put(Tags.T_INT8);
            out.put((Byte) v);
        } else if (v instanceof byte[]) {
            out.put(Tags.T_BYTES);
            out.putBytes((byte[]) v);
        } else if (v instanceof ByteBuffer) {
            ByteBuffer bb = ((ByteBuffer) v).duplicate();
            byte[] b = new byte[bb.remaining()];
            bb.get(b);
            out.put(Tags.T_BYTES);
            out.putBytes(b);
        } else if (v instanceof List) {
            List<?> list = (List<?>) v;
            Schema items = schema != null && schema.type() == Schema.Type.ARRAY ? schema.valueSchema() : null;
            out.put(Tags.T_ARRAY);
            out.putUvarint(list.size());
            int i = 0;
            for (Object item : list) {
                try {
                    writeValue(items, item, out, depth + 1, offsets);
                } catch (PathException e) {
                    throw e.at("[" + i + "]");
                }
                i++;
            }
        } else if (v instanceof Map) {
            Map<?, ?> map = (Map<?, ?>) v;
            boolean typed = schema != null && schema.type() == Schema.Type.MAP;
            Schema ks = typed ? schema.keySchema() : null;
            Schema vs = typed ? schema.valueSchema() : null;
            out.put(Tags.T_MAP);
            out.putUvarint(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String segment = String.valueOf(e.getKey());
                try {
                    writeValue(ks, e.getKey(), out, depth + 1, offsets);
                    writeValue(vs, e.getValue(), out, depth + 1, offsets);
                } catch (PathException ex) {
                    throw ex.at(segment);
                }
            }
        } else if (v instanceof BigDecimal) {
            if (!named(schema, Decimal.LOGICAL_NAME)) {
                throw unsupported("a BigDecimal needs a Decimal schema (" + Decimal.LOGICAL_NAME
                    + ") to cross to connect-rs; schemaless logical values are not supported");
            }
            byte[] raw;
            try {
                raw = Decimal.fromLogical(schema, (BigDecimal) v);
            } catch (DataException e) {
                throw new PathException(e.getMessage(), e);
            }
            out.put(Tags.T_BYTES);
            out.putBytes(raw);
        } else if (v instanceof java.util.Date) {
            java.util.Date d = (java.util.Date) v;
            try {
                if (named(schema, Date.LOGICAL_NAME)) {
                    out.put(Tags.T_INT32);
                    out.putI32(Date.fromLogical(schema, d));
                } else if (named(schema, Time.LOGICAL_NAME)) {
                    out.put(Tags.T_INT32);
                    out.putI32(Time.fromLogical(schema, d));
                } else if (named(schema, Timestamp.LOGICAL_NAME)) {
                    out.put(Tags.T_INT64);
                    out.putI64(Timestamp.fromLogical(schema, d));
                } else {
                    throw unsupported("a java.util.Date needs a Date, Time or Timestamp schema to cross to "
                        + "connect-rs; schemaless logical values are not supported");
                }
            } catch (DataException e) {
                throw new PathException(e.getMessage(), e);
            }
        } else {
            throw unsupported("a " + v.getClass().getName() + " is not a Connect value");
        }
    }
}
