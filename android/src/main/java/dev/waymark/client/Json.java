package dev.waymark.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/** Reading the catalog's JSON, where a missing or null field is null, and writing JSON that cannot fail. */
final class Json {
    private Json() {}

    /** The text at {@code key}, or null when it is missing or null. */
    static String text(JSONObject json, String key) {
        return json != null && json.has(key) && !json.isNull(key) ? json.optString(key) : null;
    }

    /** The strings of the array at {@code key}, or null when there is none. */
    static List<String> texts(JSONObject json, String key) {
        JSONArray list = json != null ? json.optJSONArray(key) : null;
        if (list == null) return null;
        List<String> read = new ArrayList<String>();
        for (int i = 0; i < list.length(); i++) if (list.opt(i) instanceof String) read.add(list.optString(i));
        return Collections.unmodifiableList(read);
    }

    /** Each object of the array at {@code key}, read by {@code read}; an entry that is not an object is skipped. */
    static <T> List<T> objects(JSONObject json, String key, Function<JSONObject, T> read) {
        JSONArray list = json != null ? json.optJSONArray(key) : null;
        List<T> objects = new ArrayList<T>();
        for (int i = 0; list != null && i < list.length(); i++) {
            JSONObject object = list.optJSONObject(i);
            if (object != null) objects.add(read.apply(object));
        }
        return Collections.unmodifiableList(objects);
    }

    /** A deep copy, for a caller to change. */
    static JSONObject copy(JSONObject json) {
        try {
            return new JSONObject(json.toString());
        } catch (JSONException cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
    }

    /** {@code json} with {@code value} at {@code key}; the keys here are never null, so it never throws. */
    static JSONObject put(JSONObject json, String key, Object value) {
        try {
            return json.put(key, value);
        } catch (JSONException cannotHappen) {
            throw new IllegalArgumentException(cannotHappen);
        }
    }
}
