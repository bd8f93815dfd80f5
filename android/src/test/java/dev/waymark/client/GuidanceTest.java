package dev.waymark.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/**
 * What the Android core gives an app beyond tips, against a real {@code waymark serve} with the
 * demo shop's catalog: surveys, buttons, hotspots and narration as events the server keeps,
 * checklists done by their rules, kept and claimed once, the help launcher's lists and search
 * (in Hindi, a nukta letter typed either way), and progress that follows the user to another phone.
 */
class GuidanceTest extends AgainstServer {
    @Test
    void surveysButtonsHotspotsAndNarrationAreEventsTheServerKeeps() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient phoneClient = client(phone, "g1", "en-IN");
        phoneClient.start();
        phoneClient.record("activation", null, null);
        assertEquals(Collections.singletonList("show welcome: Welcome to the shop"), drawn);
        assertEquals("Next", phoneClient.word("next", "Next"), "English keeps the app's words");
        DeliveredTip welcome = phoneClient.tip("welcome");
        assertEquals(Arrays.asList("tour", "later"), Arrays.asList(welcome.actions.get(0).id, welcome.actions.get(1).id));
        assertEquals("Take the tour", welcome.actions.get(0).label);

        // Its recorded narration, as the catalog names it.
        Narration narration = phoneClient.narration("welcome");
        assertNotNull(narration);
        assertEquals("https://media.example.com/welcome-en.ogg", narration.url);
        assertEquals("recording", narration.source);
        phoneClient.narrationPlayed("welcome");
        phoneClient.narrationCompleted("welcome");

        // "Take the tour": its event dismisses the tip (the catalog's dismissal reads it) and the app opens the tour.
        WaymarkException unknown = assertThrows(WaymarkException.class, () -> phoneClient.press("nope", "welcome"));
        assertEquals("not_an_action", unknown.code);
        phoneClient.press("tour", "welcome");
        assertEquals("finished:dismissed", phoneClient.phase("welcome"));
        assertTrue(drawn.contains("hide welcome dismissed"), drawn.toString());
        assertEquals(Collections.singletonList("tour shop-tour from welcome"), followed);

        // The survey after checking out: a score in its range, a comment; its buttons show after.
        phoneClient.record("tap", "checkout", null);
        assertTrue(drawn.contains("show checkout-survey: How easy was checking out?"), drawn.toString());
        DeliveredSurvey survey = phoneClient.tip("checkout-survey").survey;
        assertEquals(1, survey.min);
        assertEquals(5, survey.max);
        assertTrue(survey.comment);
        assertEquals("bad_score", assertThrows(WaymarkException.class, () -> phoneClient.answer("checkout-survey", 9, null)).code);
        assertEquals("not_a_survey", assertThrows(WaymarkException.class, () -> phoneClient.answer("welcome", 3, null)).code);
        phoneClient.answer("checkout-survey", 4, "  Quick 👍 ");
        assertEquals("finished:dismissed", phoneClient.phase("checkout-survey"), "an answer is the survey's dismissal");
        phoneClient.press("delivery-help", "checkout-survey");
        // A tour page's button, and a hotspot opened.
        assertEquals("route", phoneClient.press("shop", "shop-tour", "checkout").kind);
        phoneClient.hotspotOpened("cart-hotspot");
        assertEquals(Arrays.asList("tour shop-tour from welcome", "url https://help.example.com/delivery from checkout-survey",
            "route /products from shop-tour/checkout"), followed);

        List<JSONObject> events = stored(phoneClient, "g1");
        JSONObject answer = named(events, "survey_answered").get(0).getJSONObject("properties");
        assertEquals("4", answer.getString("score"));
        assertEquals("Quick 👍", answer.getString("comment"));
        assertEquals("checkout-survey", answer.getString("tip"));
        JSONObject pressed = named(events, "tip_action").get(0);
        assertEquals("welcome", pressed.getString("target"));
        assertEquals("shop-tour", pressed.getJSONObject("properties").getString("to"));
        assertEquals("tour", pressed.getJSONObject("properties").getString("kind"));
        JSONObject dismissed = named(events, "tip_dismissed").get(0);
        assertEquals("banner", dismissed.getJSONObject("properties").getString("container"));
        assertEquals(2, named(events, "tip_action").size());
        assertEquals("checkout", named(events, "tour_action").get(0).getJSONObject("properties").getString("page"));
        assertEquals("recording", named(events, "narration_played").get(0).getJSONObject("properties").getString("source"));
        assertEquals(1, named(events, "narration_completed").size());
        assertEquals("cart-hotspot", named(events, "hotspot_opened").get(0).getString("target"));
        phoneClient.stop();
    }

    @Test
    void checklistItemsAreDoneByTheirRulesKeptAcrossRestartsAndClaimedOnce() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient first = client(phone, "g2");
        first.start();
        List<ChecklistStatus> lists = first.checklists();
        assertEquals(1, lists.size());
        ChecklistStatus steps = lists.get(0);
        assertEquals("first-steps", steps.checklist.id);
        assertEquals("शुरुआत करें", steps.checklist.content.title, "in the user's language");
        assertEquals(10, steps.checklist.reward);
        assertEquals(4, steps.checklist.items.size());
        assertTrue(steps.offered, "no trigger: offered from the start");
        assertEquals(0, steps.doneCount());
        first.checklistOpened("first-steps");
        first.record("screen", "product", null);
        first.record("screen", "product", null);
        first.record("screen", "search", null);
        first.record("tap", "add-to-cart", null);
        assertEquals(new HashSet<String>(Arrays.asList("browse", "search", "cart")), first.checklists().get(0).done);
        first.stop();

        // Killed and started again: what was done stays done; the last item completes it.
        WaymarkClient again = client(phone, "g2");
        again.start();
        assertEquals(3, again.checklists().get(0).doneCount());
        again.record("tap", "checkout", null);
        assertTrue(again.checklists().get(0).completed);
        Grant granted = again.claimChecklist("first-steps");
        assertTrue(granted.created, granted.toString());
        assertEquals(10, granted.credits);
        assertFalse(again.claimChecklist("first-steps").created, "claimed once");

        List<JSONObject> events = stored(again, "g2");
        List<String> items = new ArrayList<String>();
        for (JSONObject event : named(events, "checklist_item_done")) items.add(event.getJSONObject("properties").getString("item"));
        assertEquals(Arrays.asList("browse", "search", "cart", "checkout"), items, "each item once, in the order done");
        assertEquals(1, named(events, "checklist_completed").size());
        assertTrue(named(events, "checklist_completed").get(0).getJSONObject("properties").has("seconds"));
        assertEquals("first-steps", named(events, "checklist_opened").get(0).getString("target"));
        again.stop();
    }

    @Test
    void progressFollowsTheUserToTheirOtherPhone() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient first = client(phone, "g3");
        first.start();
        first.record("activation", null, null);
        first.close("welcome");
        first.record("screen", "product", null);
        first.tourProgressed("shop-tour", 2, true);
        assertTrue(first.syncProgress());
        first.stop();

        File otherPhone = Files.createTempDirectory("waymark-android-other").toFile();
        try {
            drawn.clear();
            WaymarkClient second = client(otherPhone, "g3");
            second.start(); // syncs
            assertEquals("finished:closed", second.phase("welcome"), "closed on the other phone");
            assertTrue(second.record("activation", null, null).isEmpty());
            assertTrue(drawn.isEmpty(), drawn.toString());
            assertTrue(second.isTourFinished("shop-tour"));
            second.record("tap", "tour-start", null);
            assertTrue(opened.isEmpty(), "a tour finished on the other phone does not open: " + opened);
            assertEquals(Collections.singleton("browse"), second.checklists().get(0).done);
            second.stop();
        } finally {
            delete(otherPhone);
        }
    }

    @Test
    void theHelpListsTheScreensHelpFirstAndFindsWhatIsTypedInHindi() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient phoneClient = client(phone, "g4");
        phoneClient.start();
        assertEquals("आगे", phoneClient.word("next", "Next"), "Waymark's words in the user's language");
        assertEquals("पेज {n} / {total}", phoneClient.word("pageOf", "Page {n} of {total}"));
        HelpResults cart = phoneClient.helpOpened("cart");
        assertEquals(2, cart.forScreen);
        assertEquals(Arrays.asList("delivery-times", "cash-on-delivery", "returns"), ids(cart.articles));
        assertEquals("मेरा ऑर्डर कब आएगा?", cart.articles.get(0).content.title);
        assertEquals(Arrays.asList("shop-tour", "pay-tour"), tourIds(cart.tours));
        assertEquals("first-steps", cart.checklists.get(0).id);
        HelpResults home = phoneClient.helpOpened(null);
        assertEquals(0, home.forScreen);
        assertEquals(Collections.singletonList("shop-tour"), tourIds(home.tours), "the cart's tour is not listed elsewhere");

        // ज़्यादातर with ज़ as one code point (U+095B) and as ज + nukta: both find the two articles.
        for (String typed : new String[] {"\u095b\u094d\u092f\u093e\u0926\u093e\u0924\u0930", "\u091c\u093c\u094d\u092f\u093e\u0926\u093e\u0924\u0930"}) {
            assertEquals(Arrays.asList("delivery-times", "returns"), ids(phoneClient.searchHelp(typed, "home").articles), typed);
        }
        assertEquals(Collections.singletonList("returns"), ids(phoneClient.searchHelp("  REFUND ", "cart").articles), "by a keyword");
        assertEquals(Collections.singletonList("pay-tour"), tourIds(phoneClient.searchHelp("भुगतान कैसे", "home").tours));
        assertEquals(0, phoneClient.searchHelp("gift wrap", "cart").count());
        phoneClient.articleOpened("returns");

        List<JSONObject> events = stored(phoneClient, "g4");
        assertEquals(2, named(events, "help_opened").size());
        assertEquals("cart", named(events, "help_opened").get(0).getJSONObject("properties").getString("screen"));
        JSONObject nothing = named(events, "help_searched").get(4).getJSONObject("properties");
        assertEquals("gift wrap", nothing.getString("query"));
        assertEquals(0, nothing.getInt("results"));
        assertEquals("refund", named(events, "help_searched").get(2).getJSONObject("properties").getString("query"), "folded");
        assertEquals("returns", named(events, "article_opened").get(0).getString("target"));
        phoneClient.stop();
    }

    static List<String> ids(List<DeliveredArticle> articles) {
        List<String> ids = new ArrayList<String>();
        for (DeliveredArticle article : articles) ids.add(article.id);
        return ids;
    }

    static List<String> tourIds(List<DeliveredTour> tours) {
        List<String> ids = new ArrayList<String>();
        for (DeliveredTour tour : tours) ids.add(tour.id);
        return ids;
    }

    @Test
    void helpSearchFoldsTextAsEverySdkDoes() {
        assertEquals("cash on delivery", HelpSearch.fold("  Cash\u00a0ON\n\tdeli\u00advery "));
        assertEquals(HelpSearch.fold("\u095b"), HelpSearch.fold("\u091c\u093c"), "a nukta letter either way");
        assertEquals(HelpSearch.fold("\u0915\u094d\u0937"), HelpSearch.fold("\u0915\u094d\u200d\u0937"), "without zero-width joiners");
        assertEquals("fi", HelpSearch.fold("ﬁ"), "compatibility forms");
        assertTrue(HelpSearch.matches("paying cash on delivery", "cash pay"));
        assertFalse(HelpSearch.matches("paying cash on delivery", "cash card"));
    }

    @Test
    void aCommentIsCutToWholeCharactersWithinItsBytes() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 510; i++) text.append('a');
        // A flag is two code points, eight bytes: it does not fit in the two left, and is not split.
        assertEquals(text.toString(), WaymarkClient.prefix(text + "\uD83C\uDDEE\uD83C\uDDF3", 512));
        assertEquals(text + "é", WaymarkClient.prefix(text + "éé", 512));
        assertEquals("short", WaymarkClient.prefix("short", 512));
    }

    @Test
    void guidanceEventsReachTheAppsOwnAnalytics() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        List<GuidanceEvent> heard = Collections.synchronizedList(new ArrayList<GuidanceEvent>());
        WaymarkClient tracked = WaymarkClient.builder(app.getString("clientKey"), server.url)
            .user("g9", null)
            .context(new WaymarkClient.Context("android", "Pixel 4a", "1.4.0", "hi-IN"))
            .renderer(renderer)
            .directory(phone)
            .background(false)
            .onGuidanceEvent(heard::add)
            .build();
        tracked.start();
        tracked.record("activation", null, null);
        tracked.record("tap", "welcome-close", null);
        tracked.answer("checkout-survey", 4, "ठीक है");
        List<String> names = new ArrayList<String>();
        for (GuidanceEvent event : heard) names.add(event.name);
        assertEquals(Arrays.asList("tip_shown", "tip_dismissed", "survey_answered"), names, "guidance only: not the taps");
        assertEquals("welcome", heard.get(0).target);
        assertEquals("welcome", heard.get(0).properties.get("tip"));
        assertEquals("android", heard.get(0).properties.get("platform"));
        assertEquals("ठीक है", heard.get(2).properties.get("comment"));
        assertThrows(UnsupportedOperationException.class, () -> heard.get(0).properties.put("tip", "other"));
        tracked.flush();
        List<JSONObject> stored = stored(tracked, "g9");
        List<String> ids = new ArrayList<String>();
        for (JSONObject event : stored) ids.add(event.getString("id"));
        for (GuidanceEvent event : heard) assertTrue(ids.contains(event.id), "the server keeps it under the same id: " + event);
        tracked.stop();
    }
}
