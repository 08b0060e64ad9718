package io.connectrs.host.wire.codec;

/** Malformed input: truncated, an unknown tag or id. A protocol error; the connection cannot go on. */
public class CodecException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CodecException(String message) {
        super(message);
    }
}
