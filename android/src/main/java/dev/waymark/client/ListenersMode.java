package dev.waymark.client;

import java.util.Locale;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The listener's mode, as every SDK has it: whether the user hears every tip as it appears. Their
 * own choice, {@code {"on", "at"}}, made here or on another of their devices (the latest holding),
 * else the catalog's default for their locale. The choice is kept in its file by the client's
 * writer. Not thread-safe: the client holds its lock.
 */
final class ListenersMode {
    private final KeptFile file;
    private final Keeper keeper;
    /** The user's own choice, or null. */
    private JSONObject choice;

    ListenersMode(KeptFile file, Keeper keeper) {
        this.file = file;
        this.keeper = keeper;
        this.choice = file.load();
    }

    /** The user's own choice, {@code {"on", "at"}}, to share with their other devices; null for none. */
    JSONObject choice() { return choice; }

    /** Whether the mode is on: the user's choice, else whether the catalog's {@code listen} locales
     *  name theirs ({@code hi} covers {@code hi-IN}). */
    boolean isOn(JSONArray locales, String locale) {
        if (choice != null) return choice.optBoolean("on");
        String wanted = locale != null ? locale.toLowerCase(Locale.ROOT).replace('_', '-') : null;
        for (int i = 0; wanted != null && locales != null && i < locales.length(); i++) {
            String listed = locales.optString(i).toLowerCase(Locale.ROOT);
            if (wanted.equals(listed) || wanted.startsWith(listed + "-")) return true;
        }
        return false;
    }

    /** The user turned it on or off at {@code at}. */
    void choose(boolean on, long at) {
        JSONObject made = new JSONObject();
        Json.put(made, "on", on);
        Json.put(made, "at", at);
        keep(made);
    }

    /** Takes a choice made on another device, if it came later than this one's. */
    void merge(JSONObject remote) {
        if (remote != null && isLater(remote, choice)) keep(remote);
    }

    private void keep(JSONObject made) {
        choice = made;
        keeper.keep(file, () -> made);
    }

    /** Whether a choice came after another (at the same moment, on after off). */
    static boolean isLater(JSONObject choice, JSONObject other) {
        if (other == null) return true;
        long at = choice.optLong("at");
        long otherAt = other.optLong("at");
        return at != otherAt ? at > otherAt : choice.optBoolean("on") && !other.optBoolean("on");
    }
}
