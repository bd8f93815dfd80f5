package dev.waymark.client;

import org.json.JSONObject;

/** Text in the locale the catalog chose for this device: a title, sanitized HTML, and narration if there is audio. */
public final class DeliveredContent {
    /** The locale the text is in (after the fallback chain), or {@code default}. */
    public final String locale;
    public final String title;
    /** Sanitized HTML: paragraphs, emphasis, links, lists. */
    public final String html;
    /** The narration's URL (absolute, or a path on the server; {@link WaymarkClient#narration} resolves it), or null. */
    public final String narration;
    /** The narration's length in seconds, or null when unknown. */
    public final Double narrationSeconds;
    /** {@code recording} (an author's) or {@code generated} (spoken by the server). */
    public final String narrationSource;

    DeliveredContent(JSONObject json) {
        locale = json != null ? json.optString("locale", "default") : "default";
        title = json != null ? json.optString("title", "") : "";
        html = json != null ? json.optString("html", "") : "";
        JSONObject audio = json != null ? json.optJSONObject("narration") : null;
        narration = Json.text(audio, "url");
        narrationSeconds = audio != null && audio.opt("duration") instanceof Number ? audio.optDouble("duration") : null;
        narrationSource = audio != null ? audio.optString("source", "recording") : "recording";
    }
}
