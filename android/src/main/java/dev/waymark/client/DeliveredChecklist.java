package dev.waymark.client;

import dev.waymark.rules.Rule;
import java.util.List;
import org.json.JSONObject;

/**
 * An onboarding checklist as the catalog delivered it: its items, each done once its rule holds,
 * in the language of its content. {@link WaymarkClient#checklists()} gives it with the user's
 * progress.
 */
public final class DeliveredChecklist {
    public final String id;
    /** Its name (the title) and a line about it. */
    public final DeliveredContent content;
    /** When it is offered; null: from the start. */
    public final Rule trigger;
    /** The screens whose help lists it; null: every screen. */
    public final List<String> screens;
    /** Credits for completing it, claimed once with {@link WaymarkClient#claimChecklist}; 0 for none. */
    public final int reward;
    /** Its tasks, in order. */
    public final List<Item> items;

    /** One task of a checklist. */
    public static final class Item {
        public final String id;
        /** The task's words. */
        public final DeliveredContent content;
        /** Done once this rule holds; it stays done. */
        public final Rule done;
        /** A tour its "Show me" button starts, or null. */
        public final String tour;
        /** A tip its "Show me" button shows, or null. */
        public final String tip;

        Item(JSONObject json) {
            id = json.optString("id");
            content = new DeliveredContent(json.optJSONObject("content"));
            done = Rule.fromJSON(json.opt("done"));
            tour = Json.text(json, "tour");
            tip = Json.text(json, "tip");
        }
    }

    /** Throws IllegalArgumentException when a rule does not read: the checklist is left out, the others run. */
    DeliveredChecklist(JSONObject json) {
        id = json.optString("id");
        content = new DeliveredContent(json.optJSONObject("content"));
        trigger = json.has("trigger") && !json.isNull("trigger") ? Rule.fromJSON(json.opt("trigger")) : null;
        screens = Json.texts(json, "screens");
        reward = json.optInt("reward", 0);
        items = Json.objects(json, "items", Item::new);
    }
}
