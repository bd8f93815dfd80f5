package dev.waymark.client;

import org.json.JSONObject;

/** What a client showing a preview of the draft is told of it: until when it lasts, and whether it ended. */
public final class DeliveredPreview {
    /** When the preview stops working (RFC 3339, UTC). */
    public final String expires;
    /** Whether it has ended: the catalog is then empty, and the app goes back to its own client. */
    public final boolean ended;

    DeliveredPreview(JSONObject json) {
        expires = json.optString("expires");
        ended = json.optBoolean("ended", false);
    }
}
