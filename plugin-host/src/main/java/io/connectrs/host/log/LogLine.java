package io.connectrs.host.log;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/**
 * One log event as one line on the host's stderr, which connect-rs reads:
 * {@code RS LEVEL US logger US message}, where RS (U+001E) marks the line as an event, US
 * (U+001F) separates the fields, and each line break of the message (and of the stack trace
 * appended to it) is written as GS (U+001D). Any other stderr line is plain output.
 */
public final class LogLine {
    private LogLine() {}

    /** Marks a line as a log event. */
    public static final char START = '\u001e';
    /** Separates level, logger and message. */
    public static final char FIELD = '\u001f';
    /** Stands for a line break inside the message. */
    public static final char NEWLINE = '\u001d';

    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

    /** Writes one event. */
    public static void write(String level, String logger, String message, Throwable thrown) {
        StringBuilder line = new StringBuilder(128).append(START).append(level).append(FIELD).append(logger)
                .append(FIELD);
        append(line, message == null ? "null" : message);
        if (thrown != null) {
            StringWriter trace = new StringWriter();
            thrown.printStackTrace(new PrintWriter(trace));
            line.append(NEWLINE);
            append(line, trace.toString().stripTrailing());
        }
        synchronized (OUT) {
            OUT.println(line);
        }
    }

    private static void append(StringBuilder line, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line.append(NEWLINE);
            } else if (c != '\r') {
                line.append(c);
            }
        }
    }
}
