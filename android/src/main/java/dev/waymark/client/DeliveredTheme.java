package dev.waymark.client;

import org.json.JSONObject;

/**
 * How the app's guidance looks, every token given: for apps that draw tips with their own views.
 * The catalog's ({@link WaymarkClient#theme()}), or a tip's own ({@link DeliveredTip#theme}).
 */
public final class DeliveredTheme {
    /** The colours of one mode, each {@code #rrggbb}. */
    public static final class Colors {
        /** The tip's background. */
        public final String surface;
        /** Its text. */
        public final String text;
        /** Links and buttons. */
        public final String accent;
        /** The focus ring. */
        public final String focus;

        Colors(JSONObject json) {
            surface = json.optString("surface");
            text = json.optString("text");
            accent = json.optString("accent");
            focus = json.optString("focus");
        }
    }

    /** The colours in light mode. */
    public final Colors colors;
    /** The colours in dark mode: {@link #colors} when the theme has none of its own. */
    public final Colors dark;
    /** A font family list, as CSS names them ({@code Noto Sans, sans-serif}). */
    public final String font;
    /** The corner radius, in points (dp). */
    public final int radius;
    /** The space inside a tip, in points (dp). */
    public final int spacing;

    DeliveredTheme(JSONObject json) {
        JSONObject light = json.optJSONObject("colors");
        colors = new Colors(light != null ? light : new JSONObject());
        JSONObject night = json.optJSONObject("dark");
        dark = night != null ? new Colors(night) : colors;
        font = json.optString("font", "sans-serif");
        radius = json.optInt("radius", 10);
        spacing = json.optInt("spacing", 12);
    }

    /** The theme in {@code json}, or null when there is none. */
    static DeliveredTheme from(JSONObject json) {
        return json != null ? new DeliveredTheme(json) : null;
    }
}
