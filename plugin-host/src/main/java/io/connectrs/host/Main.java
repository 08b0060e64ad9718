package io.connectrs.host;

import io.connectrs.host.wire.Frame;
import io.connectrs.host.wire.FrameIO;
import io.connectrs.host.wire.JavaErrors;
import io.connectrs.host.wire.MessageType;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The plugin host's entry point. connect-rs starts it with the class path of the bundled jars,
 * writes two lines to its stdin (the connection token, the path of the Unix socket it listens
 * on) and closes it. The host connects, sends {@code HELLO}, waits for {@code OK}, then serves
 * requests until the socket reaches end of stream, when it exits: it never outlives its worker.
 */
public final class Main {
    private Main() {}

    /** Exit status when the worker went away (socket EOF or the parent process exited). */
    private static final int EXIT_WORKER_GONE = 0;
    /** Exit status of a protocol or start-up failure. */
    private static final int EXIT_FAILURE = 2;

    public static void main(String[] args) {
        // Plugins print with System.out/err: one line at a time to the pipes connect-rs logs.
        System.setOut(lineStream(FileDescriptor.out));
        System.setErr(lineStream(FileDescriptor.err));
        // Plugins' SLF4J events go to connect-rs's log at their level (io.connectrs.host.log).
        System.setProperty("slf4j.provider", "io.connectrs.host.log.HostSlf4jProvider");
        try {
            run();
        } catch (Throwable t) {
            System.err.println("connect-rs plugin host failed: " + t);
            t.printStackTrace();
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_FAILURE);
        }
    }

    private static PrintStream lineStream(FileDescriptor fd) {
        return new PrintStream(new BufferedOutputStream(new FileOutputStream(fd), 8192), true, StandardCharsets.UTF_8);
    }

    private static void run() throws IOException {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String token = stdin.readLine();
        String socketPath = stdin.readLine();
        if (token == null || socketPath == null) {
            throw new IOException("expected the token and the socket path on stdin (started by connect-rs only)");
        }
        stdin.close();
        watchParent();

        Handlers.registerBuiltins();
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socketPath));
        Connection conn = new Connection(channel);
        conn.hello(token);
        current = conn;
        org.slf4j.LoggerFactory.getLogger(Main.class).info("connect-rs plugin host started: Java {} ({}), pid {}",
                System.getProperty("java.version"), System.getProperty("java.vendor"), ProcessHandle.current().pid());
        conn.serve();
        // The worker closed the control connection: it stopped or died.
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_WORKER_GONE);
    }

    /**
     * Exits when the worker process exits, should the socket not tell (the worker also gives the
     * JVM PR_SET_PDEATHSIG when it can).
     */
    private static void watchParent() {
        ProcessHandle.current().parent().ifPresent(parent ->
                parent.onExit().thenRun(() -> Runtime.getRuntime().halt(EXIT_WORKER_GONE)));
    }

    private static volatile Connection current;

    /**
     * Sends a request to connect-rs and waits for its answer ({@code OK} payload). {@code payload} starts
     * with the target (a connector or task name, as a codec string) so connect-rs can route it.
     *
     * @throws IOException the connection is gone
     * @throws RemoteException connect-rs answered {@code ERR}
     */
    public static byte[] request(int type, byte[] payload) throws IOException, InterruptedException {
        Connection c = current;
        if (c == null) {
            throw new IOException("the plugin host is not connected to connect-rs");
        }
        return c.request(type, payload);
    }

    /** Sends a one-way message to connect-rs (payload as for {@link #request}). */
    public static void notifyRust(int type, byte[] payload) throws IOException {
        Connection c = current;
        if (c == null) {
            throw new IOException("the plugin host is not connected to connect-rs");
        }
        c.send(type, 0, payload);
    }

    /** connect-rs answered a request of the host with {@code ERR}. */
    public static final class RemoteException extends IOException {
        private static final long serialVersionUID = 1L;

        RemoteException(String message) {
            super(message);
        }
    }

    /**
     * The control connection: one reader thread; requests run on a pool that grows as needed, so a
     * request that blocks in a plugin (a source task's {@code poll()}) never holds up another.
     */
    static final class Connection {
        private final SocketChannel channel;
        private final Object writeLock = new Object();
        private final ExecutorService pool;
        /** The host's own requests waiting for their answer, by (even) correlation id. */
        private final Map<Integer, CompletableFuture<Frame>> waiting = new ConcurrentHashMap<>();
        private final AtomicInteger nextCorr = new AtomicInteger(4);

        Connection(SocketChannel channel) {
            this.channel = channel;
            AtomicInteger n = new AtomicInteger();
            this.pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "connect-rs-host-request-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }

        byte[] request(int type, byte[] payload) throws IOException, InterruptedException {
            int corr = nextCorr.getAndAdd(2) & ~1;
            if (corr == 0) {
                corr = nextCorr.getAndAdd(2) & ~1;
            }
            CompletableFuture<Frame> answer = new CompletableFuture<>();
            waiting.put(corr, answer);
            try {
                send(type, corr, payload);
                Frame f = answer.get();
                if (f.type == MessageType.ERR) {
                    throw new RemoteException(new String(f.payload, StandardCharsets.UTF_8));
                }
                return f.payload;
            } catch (ExecutionException e) {
                throw new IOException("the connection to connect-rs ended", e.getCause());
            } finally {
                waiting.remove(corr);
            }
        }

        void hello(String token) throws IOException {
            StringBuilder hello = new StringBuilder("{\"token\":");
            JavaErrors.quote(hello, token);
            hello.append(",\"role\":\"control\",\"protocol\":").append(MessageType.PROTOCOL_VERSION)
                    .append(",\"pid\":").append(ProcessHandle.current().pid())
                    .append(",\"java\":");
            JavaErrors.quote(hello, System.getProperty("java.version"));
            hello.append('}');
            send(MessageType.HELLO, 2, hello.toString().getBytes(StandardCharsets.UTF_8));
            Frame answer = FrameIO.read(channel);
            if (answer == null || answer.type != MessageType.OK || answer.corrId != 2) {
                throw new IOException("connect-rs did not accept the plugin host's HELLO: " + answer);
            }
        }

        /** Serves frames until end of stream. */
        void serve() throws IOException {
            while (true) {
                Frame frame;
                try {
                    frame = FrameIO.read(channel);
                } catch (IOException e) {
                    // A reset or a frame cut short: the worker is gone.
                    failWaiting();
                    return;
                }
                if (frame == null) {
                    failWaiting();
                    return;
                }
                dispatch(frame);
            }
        }

        private void dispatch(Frame frame) throws IOException {
            if (frame.type == MessageType.PING) {
                send(MessageType.OK, frame.corrId, new byte[0]);
                return;
            }
            if (frame.type == MessageType.OK || frame.type == MessageType.ERR) {
                CompletableFuture<Frame> w = waiting.get(frame.corrId);
                if (w != null) {
                    w.complete(frame);
                }
                return;
            }
            Handler handler = Handlers.get(frame.type);
            pool.execute(() -> {
                byte[] answer;
                int type;
                try {
                    if (handler == null) {
                        throw new UnsupportedOperationException(
                                "the plugin host has no handler for " + MessageType.name(frame.type));
                    }
                    answer = handler.handle(frame.payload);
                    if (answer == null) {
                        answer = new byte[0];
                    }
                    if (answer.length > FrameIO.MAX_FRAME - 5) {
                        throw new IOException("the answer to " + MessageType.name(frame.type) + " has "
                                + answer.length + " bytes, more than a frame holds (" + FrameIO.MAX_FRAME + ")");
                    }
                    type = MessageType.OK;
                } catch (Throwable t) {
                    answer = JavaErrors.payload(t);
                    type = MessageType.ERR;
                }
                if (frame.corrId == 0) {
                    return;
                }
                try {
                    send(type, frame.corrId, answer);
                } catch (IOException e) {
                    // The connection is gone; the reader sees it and exits.
                }
            });
        }

        private void failWaiting() {
            for (CompletableFuture<Frame> w : waiting.values()) {
                w.completeExceptionally(new IOException("the connection to connect-rs ended"));
            }
        }

        /** Sends one frame; writers are serialised. */
        void send(int type, int corrId, byte[] payload) throws IOException {
            synchronized (writeLock) {
                FrameIO.write(channel, type, corrId, payload);
            }
        }
    }
}
