package dev.waymark.client;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How help is searched, the same in every SDK: text is compared with its compatibility forms
 * composed (a nukta letter typed as two code points finds the one-code-point form), in lower case,
 * without zero-width joiners or soft hyphens, with single spaces; a query finds what holds every
 * one of its words. Scripts without case (Devanagari, Tamil, Bengali...) compare as written.
 */
public final class HelpSearch {
    private HelpSearch() {}

    /** {@code text} as search compares it. */
    public static String fold(String text) {
        if (text == null) return "";
        String composed = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        StringBuilder words = new StringBuilder(composed.length());
        boolean space = false;
        for (int i = 0; i < composed.length(); i++) {
            char c = composed.charAt(i);
            if ((c >= '\u200B' && c <= '\u200D') || c == '\u00AD') continue;
            if (Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085') {
                space = words.length() > 0;
                continue;
            }
            if (space) words.append(' ');
            space = false;
            words.append(c);
        }
        return words.toString();
    }

    /** Whether every word of {@code query} is in {@code text}, both folded. */
    public static boolean matches(String text, String query) {
        for (String word : query.split(" ")) if (!text.contains(word)) return false;
        return true;
    }

    /** The words an article is found by: its title, its text without markup, its keywords. */
    static String text(DeliveredArticle article) {
        String body = article.content.html.replaceAll("<[^>]*>", " ");
        String[][] entities = {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
        for (String[] entity : entities) body = body.replace(entity[0], entity[1]);
        List<String> parts = new ArrayList<String>();
        parts.add(article.content.title);
        parts.add(body);
        if (article.keywords != null) parts.addAll(article.keywords);
        return fold(String.join(" ", parts));
    }
}
