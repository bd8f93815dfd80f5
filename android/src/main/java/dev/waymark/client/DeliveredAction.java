package dev.waymark.client;

import java.util.List;
import org.json.JSONObject;

/**
 * A button on a tip or a tour page, its label in the content's language. Pressing it is
 * {@link WaymarkClient#press(String, String)} (a tip's) or {@link WaymarkClient#press(String, String, String)}
 * (a page's): an event rules read ({@code tip_action:track-order}) and analytics count.
 */
public final class DeliveredAction {
    public final String id;
    /** The button's text. */
    public final String label;
    /** {@code primary} (the main thing to do) or {@code secondary}. */
    public final String style;
    /** {@code next}, {@code dismiss}, {@code tour}, {@code url} or {@code route}. */
    public final String kind;
    /** Where it leads: the tour's id, an http(s) URL, or the app's route ({@code /orders/track}); null for next and dismiss. */
    public final String to;

    DeliveredAction(JSONObject json) {
        id = json.optString("id");
        label = json.optString("label", id);
        style = json.optString("style", "primary");
        kind = json.optString("kind", "dismiss");
        to = Json.text(json, "to");
    }

    /** Whether it leads out of Waymark (a route, a web page, a tour), so the app does what it says ({@link WaymarkClient.Options#onAction}). */
    public boolean leavesWaymark() { return kind.equals("route") || kind.equals("url") || kind.equals("tour"); }

    static List<DeliveredAction> list(JSONObject json) { return Json.objects(json, "actions", DeliveredAction::new); }

    static DeliveredAction find(List<DeliveredAction> actions, String id) {
        for (DeliveredAction action : actions) if (action.id.equals(id)) return action;
        return null;
    }
}
