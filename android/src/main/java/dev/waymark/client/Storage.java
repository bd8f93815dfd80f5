package dev.waymark.client;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;

/**
 * Where the client keeps its files, by name ({@code catalog.json}, {@code events.jsonl}). The
 * client calls it only from its one background writer (and once per file while it is made), never
 * from the thread that calls {@code record}, {@code press} or any other method an app calls from
 * its main thread: a storage may be as slow as a cheap phone's flash.
 */
public interface Storage {
    /** The file's bytes, or null when there is none. */
    byte[] read(String name) throws IOException;

    /** Replaces the file whole: after a crash it holds the old bytes or the new, never a mix. */
    void write(String name, byte[] bytes) throws IOException;

    /** Adds bytes at the file's end (lines of the event queue); a crash may cut the last one short. */
    void append(String name, byte[] bytes) throws IOException;

    /** The files of a directory, made if missing: each written to a new file, synced and renamed over the old. */
    static Storage directory(File directory) {
        return new Storage() {
            @Override
            public byte[] read(String name) throws IOException {
                File file = new File(directory, name);
                return file.exists() ? Files.readAllBytes(file.toPath()) : null;
            }

            @Override
            public void write(String name, byte[] bytes) throws IOException {
                directory.mkdirs();
                File file = new File(directory, name);
                File temporary = new File(directory, name + ".new");
                try (FileOutputStream out = new FileOutputStream(temporary)) {
                    out.write(bytes);
                    out.getFD().sync();
                } catch (IOException error) {
                    temporary.delete();
                    throw error;
                }
                if (!temporary.renameTo(file)) throw new IOException("cannot rename " + temporary + " to " + file);
            }

            @Override
            public void append(String name, byte[] bytes) throws IOException {
                directory.mkdirs();
                try (FileOutputStream out = new FileOutputStream(new File(directory, name), true)) {
                    out.write(bytes);
                }
            }
        };
    }
}
