// The Java side of the converter differential (tests/compat/compat_converter.rs): runs every case of a
// corpus through Apache Kafka Connect's own JsonConverter and writes one result line per case.
//
//   java -cp "LIBS/*:CLASSES" JsonConverterOracle CORPUS RESULTS
//
// CORPUS holds one JSON object per line, written by the Rust test:
//   {"id":"…","cfg":{"schemas.enable":"true",…},"key":false,"op":"from","schema":S,"value":V}
//   {"id":"…","cfg":{…},"key":false,"op":"to","data":"HEX"|null}
// S is a neutral schema description: {"t":"int8|…|struct","o":optional,"n":name,"v":version,
// "d":doc,"p":[[k,v],…],"def":V,"items":S,"keys":S,"vals":S,"f":[[name,S],…]} or null.
// V is a type-tagged value: null, {"bool":b}, {"i8":n}, {"i16":n}, {"i32":n}, {"i64":n},
// {"f32":"HEXBITS"}, {"f64":"HEXBITS"}, {"str":s}, {"bytes":"HEX"}, {"dec":["UNSCALED",scale]},
// {"date":millis}, {"arr":[V…]}, {"map":[[K,V]…]}, {"st":[V…]} (values in field order).
//
// RESULTS has one line per case: the id, then tab-separated fields (see the Rust test for their
// meaning): "B:HEX" / "NULL" / "ERR message" for bytes, canonical dumps of toConnectData results.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

public class JsonConverterOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String TOPIC = "topic";

    public static void main(String[] args) throws Exception {
        Map<String, JsonConverter> converters = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                JsonNode c = MAPPER.readTree(line);
                String cfgKey = c.get("cfg").toString() + c.get("key").asBoolean();
                JsonConverter conv = converters.get(cfgKey);
                if (conv == null) {
                    conv = new JsonConverter();
                    Map<String, Object> props = new HashMap<>();
                    Iterator<Map.Entry<String, JsonNode>> it = c.get("cfg").fields();
                    while (it.hasNext()) {
                        Map.Entry<String, JsonNode> e = it.next();
                        props.put(e.getKey(), e.getValue().asText());
                    }
                    conv.configure(props, c.get("key").asBoolean());
                    converters.put(cfgKey, conv);
                }
                List<String> fields = new ArrayList<>();
                fields.add(c.get("id").asText());
                try {
                    runCase(conv, c, fields);
                } catch (Throwable t) {
                    fields.add("ORACLE-ERROR " + clean(t.toString()));
                }
                out.write(String.join("\t", fields));
                out.write('\n');
            }
        }
    }

    private static void runCase(JsonConverter conv, JsonNode c, List<String> fields) {
        byte[] data;
        if (c.get("op").asText().equals("from")) {
            Schema schema = buildSchema(c.get("schema"));
            Object value = buildValue(c.get("value"), schema);
            try {
                data = conv.fromConnectData(TOPIC, schema, value);
            } catch (Exception e) {
                fields.add(err(e));
                return;
            }
            fields.add(bytes(data));
            if (data == null) return;
        } else {
            JsonNode d = c.get("data");
            data = d == null || d.isNull() ? null : unhex(d.asText());
        }
        SchemaAndValue sv;
        try {
            sv = conv.toConnectData(TOPIC, data);
        } catch (Exception e) {
            fields.add(err(e));
            return;
        }
        StringBuilder b = new StringBuilder();
        dumpSchema(b, sv.schema());
        b.append(" = ");
        dumpValue(b, sv.value());
        fields.add(b.toString());
        try {
            fields.add(bytes(conv.fromConnectData(TOPIC, sv.schema(), sv.value())));
        } catch (Exception e) {
            fields.add(err(e));
        }
    }

    // ---- building Connect data from the neutral description ----

    private static Schema buildSchema(JsonNode s) {
        if (s == null || s.isNull()) return null;
        String t = s.get("t").asText();
        SchemaBuilder b;
        switch (t) {
            case "array": b = SchemaBuilder.array(buildSchema(s.get("items"))); break;
            case "map": b = SchemaBuilder.map(buildSchema(s.get("keys")), buildSchema(s.get("vals"))); break;
            case "struct":
                b = SchemaBuilder.struct();
                for (JsonNode f : s.get("f")) b.field(f.get(0).asText(), buildSchema(f.get(1)));
                break;
            default: b = SchemaBuilder.type(Schema.Type.valueOf(t.toUpperCase()));
        }
        if (s.path("o").asBoolean(false)) b.optional();
        if (s.hasNonNull("n")) b.name(s.get("n").asText());
        if (s.hasNonNull("v")) b.version(s.get("v").asInt());
        if (s.hasNonNull("d")) b.doc(s.get("d").asText());
        if (s.has("p")) {
            b.parameters(new LinkedHashMap<>());
            for (JsonNode p : s.get("p")) b.parameter(p.get(0).asText(), p.get(1).asText());
        }
        if (s.hasNonNull("def")) b.defaultValue(buildValue(s.get("def"), b));
        return b.build();
    }

    private static Object buildValue(JsonNode v, Schema schema) {
        if (v == null || v.isNull()) return null;
        String tag = v.fieldNames().next();
        JsonNode x = v.get(tag);
        switch (tag) {
            case "bool": return x.asBoolean();
            case "i8": return (byte) x.asInt();
            case "i16": return (short) x.asInt();
            case "i32": return x.asInt();
            case "i64": return x.asLong();
            case "f32": return Float.intBitsToFloat(Integer.parseUnsignedInt(x.asText(), 16));
            case "f64": return Double.longBitsToDouble(Long.parseUnsignedLong(x.asText(), 16));
            case "str": return x.asText();
            case "bytes": return unhex(x.asText());
            case "dec": return new BigDecimal(new BigInteger(x.get(0).asText()), x.get(1).asInt());
            case "date": return new java.util.Date(x.asLong());
            case "arr": {
                List<Object> l = new ArrayList<>();
                for (JsonNode e : x) l.add(buildValue(e, schema == null ? null : schema.valueSchema()));
                return l;
            }
            case "map": {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (JsonNode e : x) {
                    m.put(buildValue(e.get(0), schema == null ? null : schema.keySchema()),
                          buildValue(e.get(1), schema == null ? null : schema.valueSchema()));
                }
                return m;
            }
            case "st": {
                Struct st = new Struct(schema);
                int i = 0;
                for (JsonNode e : x) {
                    Field f = schema.fields().get(i++);
                    Object fv = buildValue(e, f.schema());
                    if (fv != null) st.put(f, fv);
                }
                return st;
            }
            default: throw new IllegalArgumentException("unknown value tag " + tag);
        }
    }

    // ---- the canonical dump (mirrored by the Rust test) ----

    static void dumpSchema(StringBuilder b, Schema s) {
        if (s == null) {
            b.append('-');
            return;
        }
        b.append("S(").append(s.type().getName()).append(s.isOptional() ? " opt" : " req");
        if (s.name() != null) b.append(" n=").append(quote(s.name()));
        if (s.version() != null) b.append(" v=").append(s.version());
        if (s.doc() != null) b.append(" d=").append(quote(s.doc()));
        if (s.parameters() != null) {
            b.append(" p={");
            boolean first = true;
            for (Map.Entry<String, String> e : s.parameters().entrySet()) {
                if (!first) b.append(',');
                first = false;
                b.append(quote(e.getKey())).append(':').append(quote(e.getValue()));
            }
            b.append('}');
        }
        if (s.defaultValue() != null) {
            b.append(" def=");
            dumpValue(b, s.defaultValue());
        }
        switch (s.type()) {
            case ARRAY:
                b.append(" items=");
                dumpSchema(b, s.valueSchema());
                break;
            case MAP:
                b.append(" keys=");
                dumpSchema(b, s.keySchema());
                b.append(" vals=");
                dumpSchema(b, s.valueSchema());
                break;
            case STRUCT:
                b.append(" fields=[");
                for (Field f : s.fields()) {
                    if (f.index() > 0) b.append(',');
                    b.append(quote(f.name())).append(':');
                    dumpSchema(b, f.schema());
                }
                b.append(']');
                break;
            default:
        }
        b.append(')');
    }

    static void dumpValue(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Boolean) {
            b.append("bool:").append(v);
        } else if (v instanceof Byte) {
            b.append("i8:").append(v);
        } else if (v instanceof Short) {
            b.append("i16:").append(v);
        } else if (v instanceof Integer) {
            b.append("i32:").append(v);
        } else if (v instanceof Long) {
            b.append("i64:").append(v);
        } else if (v instanceof Float) {
            b.append("f32:").append(Integer.toHexString(Float.floatToIntBits((Float) v)));
        } else if (v instanceof Double) {
            b.append("f64:").append(Long.toHexString(Double.doubleToLongBits((Double) v)));
        } else if (v instanceof String) {
            b.append("str:").append(quote((String) v));
        } else if (v instanceof byte[]) {
            b.append("bytes:").append(hex((byte[]) v));
        } else if (v instanceof java.nio.ByteBuffer) {
            java.nio.ByteBuffer bb = ((java.nio.ByteBuffer) v).duplicate();
            byte[] a = new byte[bb.remaining()];
            bb.get(a);
            b.append("bytes:").append(hex(a));
        } else if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            b.append("dec:").append(d.unscaledValue()).append('/').append(d.scale());
        } else if (v instanceof java.util.Date) {
            b.append("date:").append(((java.util.Date) v).getTime());
        } else if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object e : (List<?>) v) {
                if (!first) b.append(',');
                first = false;
                dumpValue(b, e);
            }
            b.append(']');
        } else if (v instanceof Map) {
            // Entries sorted by their dump: Java reads maps into a HashMap, whose order is not data.
            List<String> entries = new ArrayList<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                StringBuilder eb = new StringBuilder();
                dumpValue(eb, e.getKey());
                eb.append("=>");
                dumpValue(eb, e.getValue());
                entries.add(eb.toString());
            }
            java.util.Collections.sort(entries);
            b.append('{').append(String.join(",", entries)).append('}');
        } else if (v instanceof Struct) {
            Struct st = (Struct) v;
            b.append("struct{");
            for (Field f : st.schema().fields()) {
                if (f.index() > 0) b.append(',');
                dumpValue(b, st.getWithoutDefault(f.name()));
            }
            b.append('}');
        } else {
            b.append("?").append(v.getClass().getName());
        }
    }

    /** Printable ASCII as is (except `"` and `\`), every other UTF-16 unit as \\uXXXX. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') b.append(ch);
            else b.append(String.format("\\u%04x", (int) ch));
        }
        return b.append('"').toString();
    }

    // ---- small helpers ----

    private static String err(Exception e) {
        return "ERR " + clean(e.toString());
    }

    private static String clean(String s) {
        return s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }

    private static String bytes(byte[] data) {
        return data == null ? "NULL" : "B:" + hex(data);
    }

    private static String hex(byte[] a) {
        StringBuilder b = new StringBuilder();
        for (byte x : a) b.append(String.format("%02x", x & 0xff));
        return b.toString();
    }

    private static byte[] unhex(String s) {
        byte[] a = new byte[s.length() / 2];
        for (int i = 0; i < a.length; i++) a[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return a;
    }
}
