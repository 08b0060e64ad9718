package io.connectrs.host.run;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The one thread that makes every call into one connector or task instance, as Kafka Connect runs
 * each on a thread of its own: calls run in the order they were asked, with the thread context
 * class loader set to the plugin's loader (Kafka's {@code LoaderSwap}), and a call that blocks (a
 * {@code poll()} waiting for data) holds up no other instance.
 */
final class PluginThread {
    private final ExecutorService exec;
    private final ClassLoader loader;

    PluginThread(String name, ClassLoader loader) {
        this.loader = loader;
        this.exec = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            t.setContextClassLoader(loader);
            return t;
        });
    }

    /** Runs {@code call} on the thread and returns its result; its exception is rethrown as is. */
    <T> T call(Callable<T> call) throws Exception {
        try {
            return exec.submit(() -> {
                Thread.currentThread().setContextClassLoader(loader);
                return call.call();
            }).get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    /**
     * Queues {@code run} on the thread without waiting for it; it runs after the calls asked so far.
     * A thread that was closed refuses it ({@code RejectedExecutionException}).
     */
    void execute(Runnable run) {
        exec.execute(() -> {
            Thread.currentThread().setContextClassLoader(loader);
            run.run();
        });
    }

    /** Lets the thread end once the calls asked so far have run. */
    void close() {
        exec.shutdown();
    }
}
