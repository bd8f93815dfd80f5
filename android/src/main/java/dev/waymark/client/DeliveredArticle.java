package dev.waymark.client;

import java.util.List;
import org.json.JSONObject;

/** A help article as the catalog delivered it, in the device's language: the help lists it on its screens and finds it by its words. */
public final class DeliveredArticle {
    public final String id;
    /** Its title, text and narration. */
    public final DeliveredContent content;
    /** The screens it belongs to; null: every screen. */
    public final List<String> screens;
    /** More words it is found by; null: none. */
    public final List<String> keywords;

    DeliveredArticle(JSONObject json) {
        id = json.optString("id");
        content = new DeliveredContent(json.optJSONObject("content"));
        screens = Json.texts(json, "screens");
        keywords = Json.texts(json, "keywords");
    }
}
