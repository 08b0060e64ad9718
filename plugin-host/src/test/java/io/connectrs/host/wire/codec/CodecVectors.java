package io.connectrs.host.wire.codec;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The Java half of connect-rs's cross-language codec test (tests/plugin_host/codec.rs). The same cases are
 * built there in Rust, in the same order. Usage: {@code CodecVectors DIR}; DIR holds {@code rust.bin}.
 * Writes {@code java.bin} (Java's encoding of the cases), {@code java-reencoded.bin} (rust.bin decoded
 * and encoded again), {@code json.bin} + {@code json-expected.txt} (JsonConverter's offsets oracle).
 * Exits 1 with a message when a decoded case differs from the expected one.
 */
public final class CodecVectors {
    static final int SOURCE = 1;
    static final int SINK = 2;
    static final int SCHEMA_AND_VALUE = 3;
    static final int OFFSET_MAP = 4;

    /** One case: a kind and its objects. */
    static final class Case {
        final int kind;
        final Object a;
        final Object b;
        final int ref;

        Case(int kind, Object a, Object b, int ref) {
            this.kind = kind;
            this.a = a;
            this.b = b;
            this.ref = ref;
        }
    }

    static final Schema VERIFIABLE_VALUE = SchemaBuilder.struct()
        .field("name", Schema.STRING_SCHEMA)
        .field("task", Schema.INT32_SCHEMA)
        .field("topic", Schema.STRING_SCHEMA)
        .field("time_ms", Schema.INT64_SCHEMA)
        .field("seqno", Schema.INT64_SCHEMA)
        .build();

    static final Schema ROW = SchemaBuilder.struct().name("dbserver1.inventory.customers.Value").optional()
        .field("id", Schema.INT32_SCHEMA)
        .field("first_name", Schema.STRING_SCHEMA)
        .field("email", Schema.OPTIONAL_STRING_SCHEMA)
        .field("balance", Decimal.builder(2).optional().parameter("connect.decimal.precision", "10").build())
        .field("created", Timestamp.builder().optional().build())
        .field("birth", Date.builder().optional().build())
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
        .build();
    static final Schema SOURCE_INFO = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
        .field("version", Schema.STRING_SCHEMA)
        .field("connector", Schema.STRING_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.INT64_SCHEMA)
        .field("snapshot", SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
            .parameter("allowed", "true,last,false,incremental").defaultValue("false").build())
        .field("db", Schema.STRING_SCHEMA)
        .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
    static final Schema ENVELOPE = SchemaBuilder.struct().name("dbserver1.inventory.customers.Envelope").version(2)
        .field("before", ROW)
        .field("after", ROW)
        .field("source", SOURCE_INFO)
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
        .build();
    static final Schema KEY = SchemaBuilder.struct().name("dbserver1.inventory.customers.Key")
        .field("id", Schema.INT32_SCHEMA).build();

    static final Schema INNER = SchemaBuilder.struct().name("inner").field("x", Schema.INT16_SCHEMA).build();
    static final Schema ALL = SchemaBuilder.struct().name("com.example.All").version(3).doc("every type")
        .parameter("p1", "v1").parameter("a0", "v0")
        .field("i8", Schema.INT8_SCHEMA)
        .field("i16", Schema.INT16_SCHEMA)
        .field("i32", Schema.INT32_SCHEMA)
        .field("i64", Schema.INT64_SCHEMA)
        .field("f32", Schema.FLOAT32_SCHEMA)
        .field("f64", Schema.FLOAT64_SCHEMA)
        .field("bool", Schema.BOOLEAN_SCHEMA)
        .field("str", Schema.STRING_SCHEMA)
        .field("bytes", Schema.BYTES_SCHEMA)
        .field("dec", Decimal.schema(3))
        .field("date", Date.SCHEMA)
        .field("time", Time.SCHEMA)
        .field("ts", Timestamp.SCHEMA)
        .field("inner", INNER)
        .field("structs", SchemaBuilder.array(INNER).build())
        .field("smap", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
        .field("imap", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).optional().build())
        .field("opt", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .field("withdefault", SchemaBuilder.string().defaultValue("dflt").build())
        .field("intdefault", SchemaBuilder.int32().optional().defaultValue(7).doc("seven").build())
        .field("dates", SchemaBuilder.array(Date.SCHEMA).optional()
            .defaultValue(List.of(new java.util.Date(3L * 86400000L))).build())
        .field("decdefault", Decimal.builder(1).optional().defaultValue(new BigDecimal("2.5")).build())
        .build();

    static <K, V> LinkedHashMap<K, V> map(Object... kv) {
        LinkedHashMap<K, V> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            @SuppressWarnings("unchecked")
            K k = (K) kv[i];
            @SuppressWarnings("unchecked")
            V v = (V) kv[i + 1];
            m.put(k, v);
        }
        return m;
    }

    static Struct row(int id, String first, String email, BigDecimal balance, Long created, Integer birthDays,
                      List<String> tags) {
        Struct r = new Struct(ROW).put("id", id).put("first_name", first).put("email", email)
            .put("balance", balance).put("tags", tags);
        if (created != null) {
            r.put("created", new java.util.Date(created));
        }
        if (birthDays != null) {
            r.put("birth", new java.util.Date(birthDays * 86400000L));
        }
        return r;
    }

    static Struct source(long lsn, String snapshot) {
        Struct s = new Struct(SOURCE_INFO).put("version", "3.6.1.Final").put("connector", "postgresql")
            .put("name", "dbserver1").put("ts_ms", 1700000000000L).put("db", "inventory").put("lsn", lsn);
        if (snapshot != null) {
            s.put("snapshot", snapshot);
        }
        return s;
    }

    static SourceRecord debezium(boolean update) {
        Struct anne = row(1, "Anne", null, new BigDecimal("1234.50"), 1700000000123L, 19000, List.of("a", "b"));
        Struct anne2 = row(1, "Anne", "anne@x.org", null, null, null, null);
        Struct value = new Struct(ENVELOPE)
            .put("before", update ? anne : null)
            .put("after", update ? anne2 : anne)
            .put("source", update ? source(2345L, "false") : source(1234L, null))
            .put("op", update ? "u" : "c")
            .put("ts_ms", 1700000000456L);
        Map<String, Object> offset = update
            ? map("lsn", 2345L, "txId", 556L, "ts_usec", 1700000000000000L, "last_snapshot_record", false)
            : map("lsn", 1234L, "txId", 555L, "ts_usec", 1700000000000000L);
        return new SourceRecord(Map.of("server", "dbserver1"), offset, "dbserver1.inventory.customers", null,
            KEY, new Struct(KEY).put("id", 1), ENVELOPE, value, 1700000000789L);
    }

    static Struct inner(int x) {
        return new Struct(INNER).put("x", (short) x);
    }

    static SourceRecord allTypes() {
        Struct v = new Struct(ALL)
            .put("i8", (byte) -8).put("i16", (short) -1600).put("i32", -2000000).put("i64", -9000000000000L)
            .put("f32", 1.25f).put("f64", -2.5e-3).put("bool", true).put("str", "h\u00e9llo \u2713")
            .put("bytes", new byte[] {0, 1, 2, (byte) 255})
            .put("dec", new BigDecimal("-12.345"))
            .put("date", new java.util.Date(19000L * 86400000L))
            .put("time", new java.util.Date(3723004L))
            .put("ts", new java.util.Date(1700000000123L))
            .put("inner", inner(5))
            .put("structs", List.of(inner(1), inner(2)))
            .put("smap", map("a", 1, "b", 2))
            .put("imap", map(1, "one", 2, null))
            .put("decdefault", new BigDecimal("0.1"));
        ConnectHeaders h = new ConnectHeaders();
        h.addString("h-str", "first");
        h.addInt("h-int", 42);
        h.addDecimal("h-dec", new BigDecimal("1.5"));
        h.add("h-list", List.of(1L, 2L), null);
        h.add("h-null", null, null);
        h.addString("h-str", "second");
        return new SourceRecord(map("file", "/data/in.txt"), map("position", 1234L), "all-types", 5, null, null,
            ALL, v, 1700000000999L, h);
    }

    static SourceRecord verifiable(long seqno, boolean complete, Object id) {
        Object value = seqno;
        Schema valueSchema = Schema.INT64_SCHEMA;
        if (complete) {
            valueSchema = VERIFIABLE_VALUE;
            value = new Struct(VERIFIABLE_VALUE).put("name", "verifiable").put("task", 0).put("topic", "test")
                .put("time_ms", 1700000000000L + seqno).put("seqno", seqno);
        }
        return new SourceRecord(Map.of("id", id), Map.of("seqno", seqno), "test", Schema.INT32_SCHEMA, 0,
            valueSchema, value);
    }

    static List<Case> cases() {
        List<Case> c = new ArrayList<>();
        c.add(new Case(SOURCE, verifiable(0, true, 0L), null, 0));
        c.add(new Case(SOURCE, verifiable(1, false, 0L), null, 0));
        c.add(new Case(SOURCE, debezium(false), null, 0));
        c.add(new Case(SOURCE, debezium(true), null, 0));
        c.add(new Case(SOURCE, allTypes(), null, 0));
        // A tombstone: schemaless null value, no offset.
        c.add(new Case(SOURCE, new SourceRecord(Map.of("server", "dbserver1"), null, "dbserver1.inventory.customers",
            null, Schema.STRING_SCHEMA, "k1", null, null), null, 0));
        // A schemaless value keeps its Java types.
        Map<String, Object> schemaless = map("name", "verifiable", "task", 1, "seqno", 5L, "f", 1.5f,
            "nested", map("a", List.of(1L, 2L)), "bytes", new byte[] {1, 2}, "s", (short) 3, "b", (byte) -1,
            "n", null, "t", true);
        c.add(new Case(SOURCE, new SourceRecord(map("id", 1L), map("seqno", 1L), "schemaless", null, null,
            schemaless), null, 0));
        SourceRecord dbz = debezium(false);
        c.add(new Case(SINK, new SinkRecord("customers", 2, KEY, dbz.key(), ENVELOPE, dbz.value(), 100L,
            1700000000000L, TimestampType.CREATE_TIME, new ConnectHeaders(), "orig-topic", 2, 99L), null, 0));
        ConnectHeaders h = new ConnectHeaders();
        h.addString("h", "x");
        c.add(new Case(SINK, new SinkRecord("all-types", 0, null, null, Schema.STRING_SCHEMA, "v", 101L, null,
            TimestampType.NO_TIMESTAMP_TYPE, h, "all-types", 0, 101L), null, 1));
        c.add(new Case(SINK, new SinkRecord("t3", 1, null, new byte[] {9}, null, List.of("a", 1L), 7L, 5L,
            TimestampType.LOG_APPEND_TIME, new ConnectHeaders(), "t3", 1, 7L), null, -1));
        c.add(new Case(SCHEMA_AND_VALUE, Decimal.builder(3).optional().build(), new BigDecimal("-12.345"), 0));
        c.add(new Case(SCHEMA_AND_VALUE, null, "plain", 0));
        c.add(new Case(SCHEMA_AND_VALUE, Schema.OPTIONAL_STRING_SCHEMA, null, 0));
        c.add(new Case(OFFSET_MAP, map("seqno", 7L, "done", true, "name", "x", "ratio", 0.25,
            "list", List.of(1L, "a"), "obj", map("k", null)), null, 0));
        c.add(new Case(OFFSET_MAP, null, null, 0));
        // Enough distinct schemas to reset the tables, then a record whose schemas are defined again.
        for (int i = 0; i < Tags.MAX_INTERNED + 8; i++) {
            c.add(new Case(SCHEMA_AND_VALUE, SchemaBuilder.int32().name("s" + i).build(), i, 0));
        }
        c.add(new Case(SOURCE, debezium(true), null, 0));
        return c;
    }

    static void encode(Encoder enc, Case c, Buf out) {
        out.put(c.kind);
        switch (c.kind) {
            case SOURCE: enc.sourceRecord((SourceRecord) c.a, out); break;
            case SINK: enc.sinkRecord((SinkRecord) c.a, c.ref, out); break;
            case SCHEMA_AND_VALUE: enc.schemaAndValue((Schema) c.a, c.b, out); break;
            default:
                @SuppressWarnings("unchecked")
                Map<String, ?> m = (Map<String, ?>) c.a;
                enc.offsetMap(m, out);
        }
    }

    static Case decode(Decoder dec, Reader in) {
        int kind = in.u8("a case kind");
        switch (kind) {
            case SOURCE: return new Case(kind, dec.sourceRecord(in), null, 0);
            case SINK: {
                int[] ref = new int[1];
                SinkRecord r = dec.sinkRecord(in, (topic, partition, ks, k, vs, v, off, ts, tt, hs, ot, op, oo, rr) -> {
                    ref[0] = rr;
                    return SinkRecordFactory.PLAIN.create(topic, partition, ks, k, vs, v, off, ts, tt, hs, ot, op, oo, rr);
                });
                return new Case(kind, r, null, ref[0]);
            }
            case SCHEMA_AND_VALUE: {
                SchemaAndValue sv = dec.schemaAndValue(in);
                return new Case(kind, sv.schema(), sv.value(), 0);
            }
            case OFFSET_MAP: return new Case(kind, dec.offsetMap(in), null, 0);
            default: throw new IllegalStateException("case kind " + kind);
        }
    }

    static boolean deepEq(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        if (a instanceof byte[] && b instanceof byte[]) {
            return Arrays.equals((byte[]) a, (byte[]) b);
        }
        if (a instanceof List && b instanceof List) {
            List<?> x = (List<?>) a;
            List<?> y = (List<?>) b;
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!deepEq(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map && b instanceof Map) {
            // In iteration order: the encoding keeps it.
            Iterator<? extends Map.Entry<?, ?>> x = ((Map<?, ?>) a).entrySet().iterator();
            Iterator<? extends Map.Entry<?, ?>> y = ((Map<?, ?>) b).entrySet().iterator();
            while (x.hasNext() && y.hasNext()) {
                Map.Entry<?, ?> e = x.next();
                Map.Entry<?, ?> f = y.next();
                if (!deepEq(e.getKey(), f.getKey()) || !deepEq(e.getValue(), f.getValue())) {
                    return false;
                }
            }
            return !x.hasNext() && !y.hasNext();
        }
        if (a instanceof Struct && b instanceof Struct) {
            Struct x = (Struct) a;
            Struct y = (Struct) b;
            if (!x.schema().equals(y.schema())) {
                return false;
            }
            for (Field f : x.schema().fields()) {
                if (!deepEq(x.getWithoutDefault(f.name()), y.getWithoutDefault(f.name()))) {
                    return false;
                }
            }
            return true;
        }
        return a.getClass() == b.getClass() && a.equals(b);
    }

    static void check(boolean ok, String what, Object want, Object got) {
        if (!ok) {
            throw new AssertionError(what + " differs:\n want " + want + "\n got  " + got);
        }
    }

    static void checkRecord(String what, ConnectRecord<?> want, ConnectRecord<?> got) {
        check(Objects.equals(want.topic(), got.topic()), what + " topic", want.topic(), got.topic());
        check(Objects.equals(want.kafkaPartition(), got.kafkaPartition()), what + " partition", want, got);
        check(Objects.equals(want.keySchema(), got.keySchema()), what + " key schema", want.keySchema(), got.keySchema());
        check(deepEq(want.key(), got.key()), what + " key", want.key(), got.key());
        check(Objects.equals(want.valueSchema(), got.valueSchema()), what + " value schema", want.valueSchema(),
            got.valueSchema());
        check(deepEq(want.value(), got.value()), what + " value", want.value(), got.value());
        check(Objects.equals(want.timestamp(), got.timestamp()), what + " timestamp", want.timestamp(), got.timestamp());
        Iterator<Header> x = want.headers().iterator();
        Iterator<Header> y = got.headers().iterator();
        while (x.hasNext() && y.hasNext()) {
            Header a = x.next();
            Header b = y.next();
            check(a.key().equals(b.key()) && Objects.equals(a.schema(), b.schema()) && deepEq(a.value(), b.value()),
                what + " header", a, b);
        }
        check(!x.hasNext() && !y.hasNext(), what + " header count", want.headers(), got.headers());
        if (want instanceof SourceRecord) {
            SourceRecord a = (SourceRecord) want;
            SourceRecord b = (SourceRecord) got;
            check(deepEq(a.sourcePartition(), b.sourcePartition()), what + " source partition", a.sourcePartition(),
                b.sourcePartition());
            check(deepEq(a.sourceOffset(), b.sourceOffset()), what + " source offset", a.sourceOffset(),
                b.sourceOffset());
        } else {
            SinkRecord a = (SinkRecord) want;
            SinkRecord b = (SinkRecord) got;
            check(a.kafkaOffset() == b.kafkaOffset() && a.timestampType() == b.timestampType()
                && a.originalTopic().equals(b.originalTopic())
                && Objects.equals(a.originalKafkaPartition(), b.originalKafkaPartition())
                && a.originalKafkaOffset() == b.originalKafkaOffset(), what + " sink fields", a, b);
        }
        // Connect's own equals, where byte[] (compared by identity there) does not get in the way.
        if (!(want.key() instanceof byte[]) && !(want.value() instanceof Map)) {
            check(want.equals(got), what + " (equals)", want, got);
        }
    }

    static void checkCase(int i, Case want, Case got) {
        String what = "case " + i;
        check(want.kind == got.kind, what + " kind", want.kind, got.kind);
        switch (want.kind) {
            case SOURCE:
            case SINK:
                checkRecord(what, (ConnectRecord<?>) want.a, (ConnectRecord<?>) got.a);
                check(want.ref == got.ref, what + " record_ref", want.ref, got.ref);
                break;
            case SCHEMA_AND_VALUE:
                check(Objects.equals(want.a, got.a), what + " schema", want.a, got.a);
                check(deepEq(want.b, got.b), what + " value", want.b, got.b);
                break;
            default:
                check(deepEq(want.a, got.a), what + " offset map", want.a, got.a);
        }
    }

    static String firstDifference(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            if (a[i] != b[i]) {
                return "first difference at byte " + i + " (lengths " + a.length + ", " + b.length + ")";
            }
        }
        return a.length == b.length ? "identical" : "one is a prefix of the other (lengths " + a.length + ", "
            + b.length + ")";
    }

    /** Schemaless logical values are refused naming the field, and the encoder stays usable. */
    static void refusals() {
        Encoder enc = new Encoder();
        Buf out = new Buf();
        out.put(0x7f);
        SourceRecord bad = new SourceRecord(Map.of("p", 1L), null, "t", null, null, null,
            map("row", map("amount", new BigDecimal("1.5"))));
        try {
            enc.sourceRecord(bad, out);
            throw new AssertionError("a schemaless BigDecimal was encoded");
        } catch (DataException e) {
            String want = "value field 'row.amount': a BigDecimal needs a Decimal schema "
                + "(org.apache.kafka.connect.data.Decimal) to cross to connect-rs; schemaless logical values are not supported";
            check(e.getMessage().equals(want), "BigDecimal refusal", want, e.getMessage());
        }
        check(out.size() == 1, "output after a refusal", 1, out.size());
        Struct s = new Struct(SchemaBuilder.struct().field("when", Schema.OPTIONAL_INT64_SCHEMA).build());
        try {
            enc.schemaAndValue(null, List.of(map("d", new java.util.Date(0))), out);
            throw new AssertionError("a schemaless Date was encoded");
        } catch (DataException e) {
            check(e.getMessage().startsWith("value field '[0].d': a java.util.Date needs a Date, Time or Timestamp schema"),
                "Date refusal", "value field '[0].d': ...", e.getMessage());
        }
        try {
            enc.sourceRecord(new SourceRecord(Map.of("p", s), null, "t", null, null), out);
            throw new AssertionError("a Struct in a source partition was encoded");
        } catch (DataException e) {
            check(e.getMessage().startsWith("source partition field 'p': a Struct"), "Struct refusal",
                "source partition field 'p': a Struct ...", e.getMessage());
        }
        check(out.size() == 1, "output after refusals", 1, out.size());
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        List<Case> cases = cases();

        // (a) Rust's bytes → Connect objects equal to the expected ones → the same bytes again.
        byte[] rust = Files.readAllBytes(dir.resolve("rust.bin"));
        Reader in = new Reader(rust);
        Decoder dec = new Decoder();
        Encoder again = new Encoder();
        Buf reencoded = new Buf(rust.length + 16);
        for (int i = 0; i < cases.size(); i++) {
            Case got = decode(dec, in);
            checkCase(i, cases.get(i), got);
            encode(again, got, reencoded);
        }
        check(in.isEmpty(), "rust.bin", "fully read", in.remaining() + " bytes left");
        Files.write(dir.resolve("java-reencoded.bin"), reencoded.toByteArray());
        check(Arrays.equals(rust, reencoded.toByteArray()), "re-encoded rust.bin", "identical",
            firstDifference(rust, reencoded.toByteArray()));

        // (b) Java's objects → bytes, for Rust to compare and decode.
        Encoder enc = new Encoder();
        Buf out = new Buf(rust.length + 16);
        for (Case c : cases) {
            encode(enc, c, out);
        }
        Files.write(dir.resolve("java.bin"), out.toByteArray());

        // (c) Offsets with Java types JSON does not keep, and what Kafka Connect stores for them.
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "false"), false);
        List<Case> jsonCases = new ArrayList<>();
        jsonCases.add(new Case(SOURCE, verifiable(42, true, 0), null, 0));
        jsonCases.add(new Case(SOURCE, verifiable(43, false, 0), null, 0));
        jsonCases.add(new Case(OFFSET_MAP, map("i", 1, "s", (short) 2, "b", (byte) 3, "l", 4L, "f", 0.1f,
            "d", 2.5, "bytes", new byte[] {1, 2, 3}, "bool", false, "str", "x", "list", List.of(1, "a"),
            "nested", map("k", 1.5f), "intkeys", map(1, "one"), "null", null), null, 0));
        Encoder jenc = new Encoder();
        Buf jout = new Buf();
        StringBuilder expected = new StringBuilder();
        for (Case c : jsonCases) {
            encode(jenc, c, jout);
            if (c.kind == SOURCE) {
                SourceRecord r = (SourceRecord) c.a;
                expected.append(new String(json.fromConnectData("", null, r.sourcePartition()), StandardCharsets.UTF_8))
                    .append('\n');
                expected.append(new String(json.fromConnectData("", null, r.sourceOffset()), StandardCharsets.UTF_8))
                    .append('\n');
            } else {
                expected.append(new String(json.fromConnectData("", null, c.a), StandardCharsets.UTF_8)).append('\n');
            }
        }
        Files.write(dir.resolve("json.bin"), jout.toByteArray());
        Files.write(dir.resolve("json-expected.txt"), expected.toString().getBytes(StandardCharsets.UTF_8));

        refusals();
        System.out.println("CodecVectors: " + cases.size() + " cases decoded, compared and re-encoded");
    }
}
