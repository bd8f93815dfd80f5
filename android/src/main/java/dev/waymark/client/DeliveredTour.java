package dev.waymark.client;

import java.util.List;
import org.json.JSONObject;

/** A guided tour as the catalog delivered it: its pages, each with its content, media and credit. */
public final class DeliveredTour {
    public final String id;
    public final List<DeliveredPage> pages;
    /** The screens whose help lists it; null: every screen. */
    public final List<String> screens;
    /** Everything the catalog says of the tour. */
    final JSONObject json;

    DeliveredTour(JSONObject json) {
        this.json = json;
        id = json.optString("id");
        pages = Json.objects(json, "pages", DeliveredPage::new);
        screens = Json.texts(json, "screens");
    }

    /** The page, or null. */
    public DeliveredPage page(String id) {
        for (DeliveredPage page : pages) if (page.id.equals(id)) return page;
        return null;
    }

    /** What the help shows and searches it by: its first page's title. */
    String title() { return pages.isEmpty() ? id : pages.get(0).title; }
}
