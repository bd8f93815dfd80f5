package dev.waymark.client;

import org.json.JSONObject;

/** A survey tip's question (its content's title asks it): the scores to offer and whether to ask for a comment. Answered with {@link WaymarkClient#answer}. */
public final class DeliveredSurvey {
    /** {@code csat} or {@code nps}. */
    public final String scale;
    /** The lowest score offered (1 for CSAT, 0 for NPS). */
    public final int min;
    /** The highest score offered (5 for CSAT, 10 for NPS). */
    public final int max;
    /** Whether to offer a free-text comment. */
    public final boolean comment;

    DeliveredSurvey(JSONObject json) {
        scale = json.optString("scale", "csat");
        min = json.optInt("min", 1);
        max = json.optInt("max", 5);
        comment = json.optBoolean("comment", false);
    }
}
