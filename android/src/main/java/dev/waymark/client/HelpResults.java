package dev.waymark.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the help launcher shows: articles, tours and checklists, for a screen or for a search. */
public final class HelpResults {
    /** For a screen, the articles that belong to it, then the others; for a search, those found. */
    public final List<DeliveredArticle> articles;
    /** How many of {@link #articles} belong to the screen (the first ones); 0 for a search. */
    public final int forScreen;
    /** For a screen, the tours listed on it (their screens hold it, or they have none); for a search, those found on any screen. */
    public final List<DeliveredTour> tours;
    /** For a screen, the checklists listed on it; for a search, those found. */
    public final List<DeliveredChecklist> checklists;

    HelpResults(List<DeliveredArticle> articles, int forScreen, List<DeliveredTour> tours, List<DeliveredChecklist> checklists) {
        this.articles = articles;
        this.forScreen = forScreen;
        this.tours = tours;
        this.checklists = checklists;
    }

    /** Everything found. */
    public int count() { return articles.size() + tours.size() + checklists.size(); }

    /** What the launcher lists on {@code screen} (null: none): every article, the screen's first; the tours and checklists of the screen or of every screen. */
    static HelpResults listed(String screen, List<DeliveredArticle> all, List<DeliveredTour> allTours, List<DeliveredChecklist> allChecklists) {
        List<DeliveredArticle> articles = new ArrayList<DeliveredArticle>();
        List<DeliveredArticle> others = new ArrayList<DeliveredArticle>();
        for (DeliveredArticle article : all) {
            if (screen != null && article.screens != null && article.screens.contains(screen)) articles.add(article);
            else others.add(article);
        }
        int forScreen = articles.size();
        articles.addAll(others);
        List<DeliveredTour> tours = new ArrayList<DeliveredTour>();
        for (DeliveredTour tour : allTours) if (belongs(tour.screens, screen)) tours.add(tour);
        List<DeliveredChecklist> checklists = new ArrayList<DeliveredChecklist>();
        for (DeliveredChecklist checklist : allChecklists) if (belongs(checklist.screens, screen)) checklists.add(checklist);
        return new HelpResults(Collections.unmodifiableList(articles), forScreen, Collections.unmodifiableList(tours),
            Collections.unmodifiableList(checklists));
    }

    /** What a search finds for {@code folded} (a query as {@link HelpSearch#fold} leaves it), on any screen. */
    static HelpResults found(String folded, List<DeliveredArticle> all, List<DeliveredTour> allTours, List<DeliveredChecklist> allChecklists) {
        List<DeliveredArticle> articles = new ArrayList<DeliveredArticle>();
        for (DeliveredArticle article : all) if (HelpSearch.matches(HelpSearch.text(article), folded)) articles.add(article);
        List<DeliveredTour> tours = new ArrayList<DeliveredTour>();
        for (DeliveredTour tour : allTours) if (HelpSearch.matches(HelpSearch.fold(tour.title()), folded)) tours.add(tour);
        List<DeliveredChecklist> checklists = new ArrayList<DeliveredChecklist>();
        for (DeliveredChecklist checklist : allChecklists) {
            if (HelpSearch.matches(HelpSearch.fold(checklist.content.title), folded)) checklists.add(checklist);
        }
        return new HelpResults(Collections.unmodifiableList(articles), 0, Collections.unmodifiableList(tours),
            Collections.unmodifiableList(checklists));
    }

    private static boolean belongs(List<String> screens, String screen) {
        return screens == null || (screen != null && screens.contains(screen));
    }
}
