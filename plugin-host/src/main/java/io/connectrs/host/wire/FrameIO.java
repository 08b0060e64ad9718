package io.connectrs.host.wire;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** Reads and writes {@link Frame}s on a channel. */
public final class FrameIO {
    private FrameIO() {}

    /** The largest {@code len} a frame may have (16 MiB). */
    public static final int MAX_FRAME = 16 * 1024 * 1024;
    /** Bytes of type and corr_id. */
    private static final int HEADER = 5;

    /**
     * The next frame, or {@code null} at end of stream between frames.
     *
     * @throws EOFException the stream ended inside a frame
     * @throws IOException a frame longer than {@link #MAX_FRAME} or shorter than its header
     */
    public static Frame read(ReadableByteChannel in) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        if (!fill(in, len, true)) {
            return null;
        }
        int n = len.getInt(0);
        if (n < HEADER || n > MAX_FRAME) {
            throw new IOException("frame of " + Integer.toUnsignedString(n) + " bytes refused: a frame holds "
                    + HEADER + " to " + MAX_FRAME + " bytes");
        }
        ByteBuffer body = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        fill(in, body, false);
        int type = body.get(0) & 0xff;
        int corr = body.getInt(1);
        byte[] payload = new byte[n - HEADER];
        body.position(HEADER);
        body.get(payload);
        return new Frame(type, corr, payload);
    }

    /** Writes one frame (callers serialise writers). */
    public static void write(WritableByteChannel out, int type, int corrId, byte[] payload) throws IOException {
        if (payload.length > MAX_FRAME - HEADER) {
            throw new IOException("frame of " + (payload.length + HEADER) + " bytes refused: at most " + MAX_FRAME);
        }
        ByteBuffer buf = ByteBuffer.allocate(4 + HEADER + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(HEADER + payload.length).put((byte) type).putInt(corrId).put(payload).flip();
        while (buf.hasRemaining()) {
            out.write(buf);
        }
    }

    private static boolean fill(ReadableByteChannel in, ByteBuffer buf, boolean eofAllowed) throws IOException {
        while (buf.hasRemaining()) {
            int r = in.read(buf);
            if (r < 0) {
                if (eofAllowed && buf.position() == 0) {
                    return false;
                }
                throw new EOFException("end of stream inside a frame");
            }
        }
        return true;
    }
}
