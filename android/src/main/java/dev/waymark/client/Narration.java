package dev.waymark.client;

/** Narration a renderer can play: where, how long, and whether an author recorded it or the server spoke it. */
public final class Narration {
    /** Absolute: a path on the server is resolved against the server's address. */
    public final String url;
    /** Seconds, or null when unknown (a recording elsewhere). */
    public final Double seconds;
    /** {@code recording} or {@code generated}. */
    public final String source;

    Narration(String url, Double seconds, String source) {
        this.url = url;
        this.seconds = seconds;
        this.source = source;
    }

    /** The content's narration with its URL resolved against {@code server}, or null when it has none (or not over http). */
    static Narration of(DeliveredContent content, String server) {
        if (content == null || content.narration == null) return null;
        try {
            java.net.URL resolved = new java.net.URL(new java.net.URL(server.endsWith("/") ? server : server + "/"), content.narration);
            if (!resolved.getProtocol().equals("https") && !resolved.getProtocol().equals("http")) return null;
            return new Narration(resolved.toString(), content.narrationSeconds, content.narrationSource);
        } catch (java.net.MalformedURLException unreadable) {
            return null;
        }
    }
}
