package dev.waymark.client;

import java.util.List;
import org.json.JSONObject;

/** A tip as the catalog delivered it for this device: where it goes, how it looks, what it says. */
public final class DeliveredTip {
    public final String id;
    public final String container;
    /** The element it points at, or null. */
    public final String anchor;
    /** tooltip, spotlight, pointer, banner, modal or hotspot (a marker that opens the tip when tapped: {@link WaymarkClient#hotspotOpened}). */
    public final String renderer;
    /** The pointer's gesture (tap, swipe...), or null. */
    public final String gesture;
    /** The A/B variant this device was given, or null. */
    public final String variant;
    /** The locale the text is in. */
    public final String locale;
    public final String title;
    /** Sanitized HTML: paragraphs, emphasis, links, lists. */
    public final String html;
    /** The narration's URL (absolute, or a path on the server), or null; {@link WaymarkClient#narration(String)} resolves it. */
    public final String narration;
    /** Its title, text and narration. */
    public final DeliveredContent content;
    /** The question, when the tip is a survey; else null. */
    public final DeliveredSurvey survey;
    /** Its buttons (a survey shows them once answered), in order; empty when it has none. */
    public final List<DeliveredAction> actions;
    /** The tip's own look, when it has one (the catalog's with what the tip changes); else null: {@link WaymarkClient#theme()}. */
    public final DeliveredTheme theme;
    /** Everything the catalog says of the tip. */
    final JSONObject json;

    DeliveredTip(JSONObject json) {
        this.json = json;
        id = json.optString("id");
        container = json.optString("container");
        anchor = Json.text(json, "anchor");
        renderer = json.optString("renderer", "tooltip");
        gesture = Json.text(json, "gesture");
        variant = Json.text(json, "variant");
        content = new DeliveredContent(json.optJSONObject("content"));
        locale = content.locale;
        title = content.title;
        html = content.html;
        narration = content.narration;
        JSONObject question = json.optJSONObject("survey");
        survey = question != null ? new DeliveredSurvey(question) : null;
        actions = DeliveredAction.list(json);
        theme = DeliveredTheme.from(json.optJSONObject("theme"));
    }
}
