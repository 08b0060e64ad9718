package io.connectrs.host;

/** Answers one request type: payload in, answer out; an exception becomes an {@code ERR} frame. */
@FunctionalInterface
public interface Handler {
    /** The answer ({@code OK} payload) to {@code payload}. */
    byte[] handle(byte[] payload) throws Exception;
}
