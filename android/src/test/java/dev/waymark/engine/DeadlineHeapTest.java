package dev.waymark.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The deadline heap gives its entries back earliest first, as java.util.PriorityQueue does. */
class DeadlineHeapTest {
    @Test
    void popsInTheOrderOfTimeThroughGrowthAndInterleavedPushes() {
        Random random = new Random(31);
        DeadlineHeap heap = new DeadlineHeap();
        PriorityQueue<Long> reference = new PriorityQueue<Long>();
        for (int step = 0; step < 200_000; step++) {
            // Pushes outnumber pops at first (the arrays grow past 64), then pops catch up; times repeat.
            if (reference.isEmpty() || random.nextInt(step < 100_000 ? 3 : 5) != 0) {
                long time = random.nextInt(5_000);
                heap.push(time, (int) time * 7);
                reference.add(time);
            } else {
                long expected = reference.poll();
                assertEquals(expected, heap.topTime(), "at step " + step);
                assertEquals((int) expected * 7, heap.topId(), "the id travels with its time");
                heap.pop();
            }
            assertEquals(reference.size(), heap.size());
        }
        while (!reference.isEmpty()) {
            assertEquals((long) reference.poll(), heap.topTime());
            heap.pop();
        }
        assertTrue(heap.isEmpty());
    }
}
