package dev.waymark.client;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.json.JSONException;
import org.json.JSONObject;

/** A JSON document kept in a file: written whole to a new file and renamed over the old, so a crash leaves one or the other. */
final class KeptFile {
    private final File file;

    /** A file, or none (null) to keep nothing. */
    KeptFile(File file) { this.file = file; }

    /** The document, or null when there is none or it does not read. */
    JSONObject load() {
        if (file == null || !file.exists()) return null;
        try {
            return new JSONObject(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
        } catch (IOException | JSONException unreadable) {
            return null;
        }
    }

    void save(JSONObject document) {
        if (file == null) return;
        File temporary = new File(file.getPath() + ".new");
        try {
            FileOutputStream out = new FileOutputStream(temporary);
            try {
                out.write(document.toString().getBytes(StandardCharsets.UTF_8));
                out.getFD().sync();
            } finally {
                out.close();
            }
            if (!temporary.renameTo(file)) throw new IOException("cannot rename " + temporary + " to " + file);
        } catch (IOException error) {
            // A state not kept is made again from the next change; the app goes on.
            temporary.delete();
        }
    }
}
