package dev.waymark.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.json.JSONException;
import org.json.JSONObject;

/** A JSON document kept in one file of a {@link Storage}, written whole. */
final class KeptFile {
    private final Storage storage;
    final String name;

    /** A file of {@code storage}, or none (a null storage) to keep nothing. */
    KeptFile(Storage storage, String name) {
        this.storage = storage;
        this.name = name;
    }

    /** The document, or null when there is none or it does not read. */
    JSONObject load() {
        if (storage == null) return null;
        try {
            byte[] bytes = storage.read(name);
            return bytes == null ? null : new JSONObject(new String(bytes, StandardCharsets.UTF_8));
        } catch (IOException | JSONException unreadable) {
            return null;
        }
    }

    /** Writes the document's bytes; answers whether they were kept. */
    boolean save(byte[] bytes) {
        if (storage == null) return true;
        try {
            storage.write(name, bytes);
            return true;
        } catch (IOException error) {
            // A state not kept is made again from the next change; the app goes on.
            return false;
        }
    }
}
