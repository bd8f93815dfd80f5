package dev.waymark.client;

import java.io.UnsupportedEncodingException;
import java.net.URLEncoder;
import org.json.JSONObject;

/**
 * Where the client's catalog comes from: the server, asked with the ETag of the catalog kept
 * ({@code If-None-Match}, so an unchanged one costs a 304), for this device and user; and the file
 * it is kept in, so that the app starts from the last good catalog and runs from it offline.
 */
final class CatalogSource {
    private final Transport transport;
    private final KeptFile file;
    private final Keeper keeper;
    /** The query that names this device and user: {@code platform=android&locale=hi-IN&user=u42}. */
    private final String query;
    /** The kept catalog's ETag and the query it was asked with. Guarded by this. */
    private String etag;
    private String keptQuery;

    CatalogSource(Transport transport, Storage storage, Keeper keeper, WaymarkClient.Context context, String user) {
        this.transport = transport;
        this.file = new KeptFile(storage, "catalog.json");
        this.keeper = keeper;
        this.query = query(context, user);
    }

    /** The catalog kept by an earlier run, or null. */
    synchronized JSONObject kept() {
        JSONObject kept = file.load();
        JSONObject catalog = kept != null ? kept.optJSONObject("catalog") : null;
        if (catalog == null) return null;
        etag = kept.optString("etag", null);
        keptQuery = kept.optString("query", null);
        return catalog;
    }

    /**
     * A new catalog from the server, kept (by the writer) for the next start; null when it has
     * not changed, the server cannot be reached, or it answers what does not read. The ETag is
     * sent only for a catalog asked for the same device and user.
     */
    JSONObject fetch(String userHash) {
        String sentTag;
        synchronized (this) {
            sentTag = query.equals(keptQuery) ? etag : null;
        }
        Transport.Answer answer;
        JSONObject fresh;
        try {
            answer = transport.get("/v1/catalog?" + query, sentTag, userHash);
            if (answer.status != 200) return null;
            fresh = answer.json();
        } catch (WaymarkException offlineOrDamaged) {
            return null;
        }
        JSONObject kept = new JSONObject();
        synchronized (this) {
            etag = answer.etag;
            keptQuery = query;
            Json.put(kept, "etag", etag);
            Json.put(kept, "query", query);
            Json.put(kept, "catalog", fresh);
        }
        keeper.keep(file, () -> kept);
        return fresh;
    }

    private static String query(WaymarkClient.Context context, String user) {
        StringBuilder query = new StringBuilder();
        String[][] items = {
            {"platform", context.platform}, {"model", context.model}, {"appVersion", context.appVersion}, {"locale", context.locale},
            {"user", user},
        };
        for (String[] item : items) {
            if (item[1] == null) continue;
            if (query.length() > 0) query.append('&');
            query.append(item[0]).append('=').append(encode(item[1]));
        }
        return query.toString();
    }

    private static String encode(String text) {
        try {
            return URLEncoder.encode(text, "UTF-8").replace("+", "%20");
        } catch (UnsupportedEncodingException cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
    }
}
