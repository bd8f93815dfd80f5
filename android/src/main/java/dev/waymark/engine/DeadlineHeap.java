package dev.waymark.engine;

/**
 * The moments at which something changes by time alone (a window closing, a display time running
 * out), as a binary min-heap of (time, id) in two arrays: pushing and popping allocate nothing
 * once the arrays have grown. Entries are never removed early; an entry whose id has since moved
 * to another time is stale, and its owner skips it when it comes to the top.
 */
final class DeadlineHeap {
    private long[] times = new long[64];
    private int[] ids = new int[64];
    private int size;

    boolean isEmpty() { return size == 0; }

    int size() { return size; }

    long topTime() { return times[0]; }

    int topId() { return ids[0]; }

    void clear() { size = 0; }

    void push(long time, int id) {
        if (size == times.length) {
            times = java.util.Arrays.copyOf(times, size * 2);
            ids = java.util.Arrays.copyOf(ids, size * 2);
        }
        int at = size++;
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (times[parent] <= time) break;
            times[at] = times[parent];
            ids[at] = ids[parent];
            at = parent;
        }
        times[at] = time;
        ids[at] = id;
    }

    void pop() {
        size -= 1;
        if (size == 0) return;
        long time = times[size];
        int id = ids[size];
        int at = 0;
        while (true) {
            int child = 2 * at + 1;
            if (child >= size) break;
            if (child + 1 < size && times[child + 1] < times[child]) child += 1;
            if (times[child] >= time) break;
            times[at] = times[child];
            ids[at] = ids[child];
            at = child;
        }
        times[at] = time;
        ids[at] = id;
    }
}
