package io.connectrs.host.wire;

/**
 * One frame: {@code u32 len (LE) | u8 type | u32 corr_id (LE) | payload}, where {@code len}
 * counts type, corr_id and payload. Odd correlation ids are Rust's requests, even ones Java's,
 * 0 a one-way notify.
 */
public final class Frame {
    /** The message type ({@link MessageType}). */
    public final int type;
    /** The correlation id (unsigned 32 bits). */
    public final int corrId;
    /** The payload. */
    public final byte[] payload;

    public Frame(int type, int corrId, byte[] payload) {
        this.type = type;
        this.corrId = corrId;
        this.payload = payload;
    }

    @Override
    public String toString() {
        return MessageType.name(type) + " #" + Integer.toUnsignedString(corrId) + " (" + payload.length + " bytes)";
    }
}
