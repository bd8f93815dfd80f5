package dev.waymark.client;

import java.util.List;
import org.json.JSONObject;

/** One page of a tour. */
public final class DeliveredPage {
    public final String id;
    public final String title;
    /** Sanitized HTML. */
    public final String html;
    /** The narration's URL, or null; {@link WaymarkClient#narration(String, String)} resolves it. */
    public final String narration;
    /** Its title, text and narration. */
    public final DeliveredContent content;
    /** The video or picture chosen for this device: its URL, or null. */
    public final String media;
    /** The credits reading it to the end earns (claimed with {@link WaymarkClient#claim}), or 0. */
    public final int reward;
    /** Its buttons, in order; empty when it has none. */
    public final List<DeliveredAction> actions;
    final JSONObject json;

    DeliveredPage(JSONObject json) {
        this.json = json;
        id = json.optString("id");
        content = new DeliveredContent(json.optJSONObject("content"));
        title = content.title;
        html = content.html;
        narration = content.narration;
        media = Json.text(json.optJSONObject("media"), "url");
        reward = json.optInt("reward", 0);
        actions = DeliveredAction.list(json);
    }
}
