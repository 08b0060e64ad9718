package io.connectrs.host.wire;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** An exception as the payload of an {@code ERR} frame: {@code {"class","message","trace","retriable"}}. */
public final class JavaErrors {
    private JavaErrors() {}

    /** The ERR payload of {@code t}; {@code trace} is the full {@code printStackTrace} text. */
    public static byte[] payload(Throwable t) {
        StringWriter trace = new StringWriter();
        t.printStackTrace(new PrintWriter(trace));
        StringBuilder out = new StringBuilder(trace.getBuffer().length() + 128);
        out.append("{\"class\":");
        quote(out, t.getClass().getName());
        out.append(",\"message\":");
        quote(out, t.getMessage());
        out.append(",\"trace\":");
        quote(out, trace.toString());
        out.append(",\"retriable\":").append(retriable(t)).append('}');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Whether Kafka treats {@code t} as retriable (Connect's or the clients' RetriableException). */
    public static boolean retriable(Throwable t) {
        return t instanceof org.apache.kafka.connect.errors.RetriableException
                || t instanceof org.apache.kafka.common.errors.RetriableException;
    }

    /** Appends {@code s} as a JSON string ({@code null} for null). */
    public static void quote(StringBuilder out, String s) {
        if (s == null) {
            out.append("null");
            return;
        }
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
