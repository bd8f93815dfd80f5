package dev.waymark.client;

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
}
