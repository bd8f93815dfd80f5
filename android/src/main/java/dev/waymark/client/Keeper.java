package dev.waymark.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.json.JSONObject;

/**
 * The client's one writer: what changed is marked here, on the caller's thread and at once, and
 * written on a thread of its own within {@code delay} ms of the first change not yet written, many
 * changes to one file becoming one write. So a tap never waits for the storage (an fsync on a
 * cheap phone's flash takes tens of milliseconds), and a crash loses at most the changes of the
 * last {@code delay} ms and of a write under way.
 *
 * <p>A document is read when it is written, not when it changed: its supplier runs on the writer's
 * thread under the client's lock, so the latest state is written and the caller copies nothing.
 * Without background work (a client made with {@code Options.background} false, as tests and
 * command-line tools make) everything is written at once on the caller's thread.
 */
final class Keeper {
    private final Object clientLock;
    private final long delay;
    private final ScheduledThreadPoolExecutor writer;
    /** Guarded by this. */
    private final Map<KeptFile, Supplier<JSONObject>> pending = new LinkedHashMap<KeptFile, Supplier<JSONObject>>();
    /** Guarded by this. */
    private final List<EventQueue> queues = new ArrayList<EventQueue>();
    /** Guarded by this: a write is scheduled. */
    private boolean scheduled;

    Keeper(Object clientLock, long delay, boolean background) {
        this.clientLock = clientLock;
        this.delay = delay;
        if (!background) {
            writer = null;
            return;
        }
        writer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "waymark-writer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The document {@code snapshot} makes is to be written to {@code file}. */
    void keep(KeptFile file, Supplier<JSONObject> snapshot) {
        synchronized (this) {
            pending.put(file, snapshot);
        }
        schedule(delay);
    }

    /** The queue has lines to write. */
    void queueChanged(EventQueue queue) {
        synchronized (this) {
            if (!queues.contains(queue)) queues.add(queue);
        }
        schedule(delay);
    }

    /** Writes what is pending now, not after the delay (when the app stops); does not wait for it. */
    void writeSoon() {
        schedule(0);
    }

    /** Waits until everything changed before this call is written (tests; tools that exit). */
    void awaitWritten() throws InterruptedException {
        if (writer == null) return;
        CountDownLatch done = new CountDownLatch(1);
        writer.execute(() -> {
            write();
            done.countDown();
        });
        done.await();
    }

    private void schedule(long after) {
        if (writer == null) {
            write();
            return;
        }
        synchronized (this) {
            if (scheduled && after > 0) return;
            scheduled = true;
        }
        writer.schedule(this::write, after, TimeUnit.MILLISECONDS);
    }

    /** On the writer's thread (or the caller's without one): every pending document, then the queues. */
    private void write() {
        Map<KeptFile, Supplier<JSONObject>> documents;
        List<EventQueue> changedQueues;
        synchronized (this) {
            scheduled = false;
            documents = new LinkedHashMap<KeptFile, Supplier<JSONObject>>(pending);
            pending.clear();
            changedQueues = new ArrayList<EventQueue>(queues);
            queues.clear();
        }
        for (Map.Entry<KeptFile, Supplier<JSONObject>> entry : documents.entrySet()) {
            byte[] bytes;
            synchronized (clientLock) {
                bytes = entry.getValue().get().toString().getBytes(StandardCharsets.UTF_8);
            }
            entry.getKey().save(bytes);
        }
        for (EventQueue queue : changedQueues) queue.persist();
    }
}
