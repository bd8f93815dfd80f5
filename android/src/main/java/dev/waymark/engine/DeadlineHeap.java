package dev.waymark.engine;

/**
 * The moments at which something changes by time alone (a window closing, a display time running
 * out), as a 4-ary min-heap of (time, id) in two arrays: half the levels of a binary heap, and a
 * node's four children side by side in memory. Entries move into a hole rather than being swapped.
 * Pushing and popping allocate nothing once the arrays have grown. Entries are never removed
 * early; an entry whose id has since moved to another time is stale, and its owner skips it when
 * it comes to the top.
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
            int parent = (at - 1) >>> 2;
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
            int first = 4 * at + 1;
            if (first >= size) break;
            int least = first;
            long leastTime = times[first];
            int end = Math.min(first + 4, size);
            for (int child = first + 1; child < end; child++) {
                if (times[child] < leastTime) {
                    least = child;
                    leastTime = times[child];
                }
            }
            if (leastTime >= time) break;
            times[at] = leastTime;
            ids[at] = ids[least];
            at = least;
        }
        times[at] = time;
        ids[at] = id;
    }
}
