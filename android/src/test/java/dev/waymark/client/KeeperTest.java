package dev.waymark.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What an app calls from its main thread never waits for the storage: one background writer does all the writing. */
class KeeperTest extends AgainstServer {
    /** The phone's files, whose writes wait until the test lets them go, noting the thread of each. */
    static final class BlockingStorage implements Storage {
        final Storage files;
        final CountDownLatch released = new CountDownLatch(1);
        final CountDownLatch blocked = new CountDownLatch(1);
        final List<String> threads = Collections.synchronizedList(new ArrayList<String>());

        BlockingStorage(File directory) { files = Storage.directory(directory); }

        @Override public byte[] read(String name) throws IOException { return files.read(name); }

        @Override public void write(String name, byte[] bytes) throws IOException {
            hold(name);
            files.write(name, bytes);
        }

        @Override public void append(String name, byte[] bytes) throws IOException {
            hold(name);
            files.append(name, bytes);
        }

        private void hold(String name) throws IOException {
            threads.add(Thread.currentThread().getName() + " " + name);
            blocked.countDown();
            try {
                released.await();
            } catch (InterruptedException interrupted) {
                throw new IOException(interrupted);
            }
        }
    }

    @Test
    @Timeout(60)
    void callsReturnAtOnceWhileTheStorageBlocks() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        // Once online, so that the phone has the catalog.
        WaymarkClient first = online(phone, "u9", "hi-IN");
        first.stop();
        first.awaitKept();

        BlockingStorage storage = new BlockingStorage(phone);
        WaymarkClient client = WaymarkClient.builder(app.getString("clientKey"), server.url)
            .user("u9", null)
            .context(new WaymarkClient.Context("android", "Pixel 4a", "1.4.0", "hi-IN"))
            .renderer(renderer)
            .storage(storage)
            .build();
        // Everything an app calls from its main thread that changes what is kept: the engine's
        // state, events, tour progress, the listener's choice.
        client.record("screen", "products", null);
        assertEquals("active", client.phase("product-list-tip"));
        client.setContainer("cart", true);
        client.tourProgressed("shop-tour", 1, false);
        client.setListening(true);
        client.close("product-list-tip");
        // The writer is now stuck in the storage, and the app goes on: the client's lock is free.
        assertTrue(storage.blocked.await(30, TimeUnit.SECONDS), "the writer reached the storage");
        client.record("tap", "search", null);
        client.stop();
        assertEquals(1, storage.released.getCount(), "every call above returned while the storage was blocked");
        for (String write : storage.threads) assertTrue(write.startsWith("waymark-writer "), "written by the writer: " + write);

        storage.released.countDown();
        client.awaitKept();
        for (String write : storage.threads) assertTrue(write.startsWith("waymark-writer "), "written by the writer: " + write);
        // What was kept is the latest state, many changes in few writes.
        JSONObject engine = new JSONObject(new String(Files.readAllBytes(new File(phone, "engine.json").toPath()), StandardCharsets.UTF_8));
        assertEquals("finished:closed", engine.getJSONObject("states").getJSONObject("product-list-tip").getString("phase"));
        assertTrue(new JSONObject(new String(Files.readAllBytes(new File(phone, "listening.json").toPath()), StandardCharsets.UTF_8))
            .getBoolean("on"));
        List<String> lines = Files.readAllLines(new File(phone, "events.jsonl").toPath(), StandardCharsets.UTF_8);
        assertTrue(lines.stream().anyMatch(line -> line.contains("\"target\":\"search\"")), "the last tap's event is kept: " + lines);
        long engineWrites = storage.threads.stream().filter(write -> write.endsWith(" engine.json")).count();
        assertTrue(engineWrites <= 3, "the engine's changes were written together: " + storage.threads);
        // And a client started from those files goes on from them.
        assertEquals("finished:closed", client(phone, "u9").phase("product-list-tip"));
    }
}
