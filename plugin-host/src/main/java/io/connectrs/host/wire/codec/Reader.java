package io.connectrs.host.wire.codec;

import java.nio.charset.StandardCharsets;

/** Reads the encoding's primitives, naming what it expected when the input is short or malformed. */
public final class Reader {
    private final byte[] buf;
    private final int limit;
    private int pos;

    public Reader(byte[] buf) {
        this(buf, 0, buf.length);
    }

    public Reader(byte[] buf, int offset, int length) {
        this.buf = buf;
        this.pos = offset;
        this.limit = offset + length;
    }

    public int position() {
        return pos;
    }

    public int remaining() {
        return limit - pos;
    }

    public boolean isEmpty() {
        return pos >= limit;
    }

    private CodecException truncated(String expected, int offset, long needed) {
        return new CodecException("truncated input at byte " + offset + ": expected " + expected + ", but only "
            + (limit - offset) + " of " + needed + " byte(s) remain");
    }

    public int u8(String expected) {
        if (pos >= limit) {
            throw truncated(expected, pos, 1);
        }
        return buf[pos++] & 0xFF;
    }

    public long uvarint(String expected) {
        int start = pos;
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= limit) {
                throw truncated(expected, start, pos - start + 1);
            }
            int b = buf[pos++] & 0xFF;
            if (shift == 63 && b > 1) {
                break;
            }
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new CodecException("invalid varint at byte " + start + ": " + expected + " does not fit");
    }

    /** An unsigned varint that fits 32 bits, returned as a non-negative long. */
    public long u32(String expected) {
        int start = pos;
        long v = uvarint(expected);
        if ((v & ~0xFFFFFFFFL) != 0) {
            throw new CodecException("invalid varint at byte " + start + ": " + expected + " does not fit");
        }
        return v;
    }

    /** A length or count, checked against the bytes that remain (a corrupt length never allocates). */
    public int len(String expected) {
        int start = pos;
        long v = uvarint(expected);
        if (v < 0 || v > remaining()) {
            throw new CodecException("truncated input at byte " + start + ": expected " + expected + ", but only "
                + remaining() + " of " + Long.toUnsignedString(v) + " byte(s) remain");
        }
        return (int) v;
    }

    public int i32(String expected) {
        long v = u32(expected);
        int u = (int) v;
        return (u >>> 1) ^ -(u & 1);
    }

    public long i64(String expected) {
        long v = uvarint(expected);
        return (v >>> 1) ^ -(v & 1);
    }

    public float f32(String expected) {
        if (remaining() < 4) {
            throw truncated(expected, pos, 4);
        }
        int bits = 0;
        for (int i = 0; i < 4; i++) {
            bits |= (buf[pos++] & 0xFF) << (8 * i);
        }
        return Float.intBitsToFloat(bits);
    }

    public double f64(String expected) {
        if (remaining() < 8) {
            throw truncated(expected, pos, 8);
        }
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits |= (long) (buf[pos++] & 0xFF) << (8 * i);
        }
        return Double.longBitsToDouble(bits);
    }

    public byte[] bytes(String expected) {
        int n = len(expected);
        byte[] b = new byte[n];
        System.arraycopy(buf, pos, b, 0, n);
        pos += n;
        return b;
    }

    public String str(String expected) {
        int n = len(expected);
        String s = new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    public boolean flag(String expected) {
        int offset = pos;
        int b = u8(expected);
        if (b > 1) {
            throw new CodecException(String.format(
                "unknown presence tag 0x%02x at byte %d; expected 0 (absent) or 1 (present)", b, offset));
        }
        return b == 1;
    }

    public Integer optI32(String expected) {
        return flag(expected) ? i32(expected) : null;
    }

    public Long optI64(String expected) {
        return flag(expected) ? i64(expected) : null;
    }
}
