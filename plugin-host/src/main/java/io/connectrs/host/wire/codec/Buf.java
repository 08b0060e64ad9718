package io.connectrs.host.wire.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer with the encoding's primitives (varints, zig-zag, little-endian floats). */
public final class Buf {
    private byte[] buf;
    private int size;

    public Buf() {
        this(256);
    }

    public Buf(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    public int size() {
        return size;
    }

    /** The backing array; bytes {@code [0, size())} are valid. */
    public byte[] array() {
        return buf;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    public void clear() {
        size = 0;
    }

    /** Drops everything after {@code newSize}. */
    public void truncate(int newSize) {
        size = newSize;
    }

    private void ensure(int extra) {
        if (size + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
        }
    }

    public void put(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    public void put(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /** Unsigned LEB128 of the 64 bits of {@code v}. */
    public void putUvarint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    /** Unsigned varint of the 32 bits of {@code v}. */
    public void putU32(int v) {
        putUvarint(v & 0xFFFFFFFFL);
    }

    public void putI32(int v) {
        putU32((v << 1) ^ (v >> 31));
    }

    public void putI64(long v) {
        putUvarint((v << 1) ^ (v >> 63));
    }

    public void putFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        ensure(4);
        for (int i = 0; i < 4; i++) {
            buf[size++] = (byte) (bits >>> (8 * i));
        }
    }

    public void putDouble(double d) {
        long bits = Double.doubleToRawLongBits(d);
        ensure(8);
        for (int i = 0; i < 8; i++) {
            buf[size++] = (byte) (bits >>> (8 * i));
        }
    }

    public void putBytes(byte[] b) {
        putUvarint(b.length);
        put(b, 0, b.length);
    }

    public void putStr(String s) {
        putBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    public void putOptI32(Integer v) {
        if (v == null) {
            put(0);
        } else {
            put(1);
            putI32(v);
        }
    }

    public void putOptI64(Long v) {
        if (v == null) {
            put(0);
        } else {
            put(1);
            putI64(v);
        }
    }
}
