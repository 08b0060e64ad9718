package io.connectrs.host.run;

import io.connectrs.host.wire.codec.Buf;
import io.connectrs.host.wire.codec.Encoder;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Polls a source task ahead of connect-rs's {@code TASK_POLL} requests, as Kafka Connect's task
 * thread calls {@code poll()} again while the producer still sends the last records: after a poll
 * that returned records, the next one is queued on the task's {@link PluginThread} at once (behind
 * any {@code commit()} or {@code stop()} asked meanwhile), and the records wait here, encoded, until
 * connect-rs asks. A request takes everything polled so far, so a task that returns one record per
 * {@code poll()} pays one round trip to connect-rs per batch, not per record.
 *
 * <p>Polling ahead pauses when {@link #MAX_RECORDS} records or {@link #MAX_BYTES} bytes wait, after a
 * poll that returned nothing (the next request polls again, so an idle task is polled only when asked,
 * as before), after a poll that threw (the records polled before it are answered first, then the
 * exception, and the encoder starts afresh as connect-rs's decoder does), and for good once the task
 * is stopping. A record polled ahead and never asked for (the task stopped) was never acknowledged:
 * its offset was not committed, and the task polls it again from its committed offsets.
 */
final class PollAhead {
    /** Records polled ahead of connect-rs at most. */
    static final int MAX_RECORDS = 10_000;
    /** Encoded bytes polled ahead of connect-rs at most (a frame holds 16 MiB). */
    static final int MAX_BYTES = 4 * 1024 * 1024;

    private final PluginThread thread;
    private final SourceTask task;
    private final Object lock = new Object();
    /** Only used on the task's thread. */
    private Encoder encoder = new Encoder();

    // Guarded by lock.
    private Buf polled = new Buf(256);
    private int count;
    private Throwable failure;
    private boolean queued;
    private boolean stopping;

    /**
     * The records handed out whose {@code commitRecord} is due, by their number in the order handed out; null
     * when the task does not override {@code commitRecord}.
     */
    private final Map<Long, SourceRecord> uncommitted;
    /** The number of the next record polled (only used on the task's thread). */
    private long next;

    PollAhead(PluginThread thread, SourceTask task, boolean commitRecords) {
        this.thread = thread;
        this.task = task;
        this.uncommitted = commitRecords ? new ConcurrentHashMap<>() : null;
    }

    /** Takes the record numbered {@code n} for its {@code commitRecord}; null when unknown. */
    SourceRecord committed(long n) {
        return uncommitted == null ? null : uncommitted.remove(n);
    }

    /**
     * The answer to a {@code TASK_POLL}: the records polled so far (their number, then each encoded),
     * waiting for the next poll when none are; or the exception of the poll that threw.
     */
    byte[] take() throws Exception {
        synchronized (lock) {
            if (count == 0 && failure == null) {
                queueNext();
                while (count == 0 && failure == null && queued) {
                    lock.wait();
                }
            }
            if (count > 0 || failure == null) {
                Buf out = new Buf(polled.size() + 5);
                out.putUvarint(count);
                out.put(polled.array(), 0, polled.size());
                polled = new Buf(256);
                count = 0;
                if (failure == null) {
                    queueNext();
                }
                return out.toByteArray();
            }
            Throwable t = failure;
            failure = null;
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            throw (Error) t;
        }
    }

    /** Polls no more: the task is stopping (its {@code stop()} is queued after the current poll). */
    void stop() {
        synchronized (lock) {
            stopping = true;
            lock.notifyAll();
        }
    }

    /** Queues one poll on the task's thread unless one is queued or polling ahead is paused. */
    private void queueNext() {
        if (queued || stopping || failure != null || count >= MAX_RECORDS || polled.size() >= MAX_BYTES) {
            return;
        }
        queued = true;
        try {
            thread.execute(this::pollOnce);
        } catch (RejectedExecutionException e) {
            queued = false;
        }
    }

    /** One {@code poll()} on the task's thread; then the next is queued when the task had records. */
    private void pollOnce() {
        synchronized (lock) {
            if (stopping) {
                queued = false;
                lock.notifyAll();
                return;
            }
        }
        Buf out = new Buf(256);
        int n;
        try {
            List<SourceRecord> records = task.poll();
            n = records == null ? 0 : records.size();
            for (int i = 0; i < n; i++) {
                encoder.sourceRecord(records.get(i), out);
            }
            if (uncommitted != null) {
                for (int i = 0; i < n; i++) {
                    uncommitted.put(next++, records.get(i));
                }
            }
        } catch (Throwable t) {
            // The bytes of this poll are dropped: connect-rs's decoder starts afresh with the error.
            encoder = new Encoder();
            synchronized (lock) {
                failure = t;
                queued = false;
                lock.notifyAll();
            }
            return;
        }
        synchronized (lock) {
            polled.put(out.array(), 0, out.size());
            count += n;
            queued = false;
            if (n > 0) {
                queueNext();
            }
            lock.notifyAll();
        }
    }
}
