package dev.waymark.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.json.JSONException;
import org.json.JSONObject;

/** Requests to one Waymark server with one key, over HttpURLConnection (Android's own). */
final class Transport {
    /** An answer: any status (errors included), the ETag header, the body. */
    static final class Answer {
        final int status;
        final String etag;
        final String body;

        Answer(int status, String etag, String body) {
            this.status = status;
            this.etag = etag;
            this.body = body;
        }

        JSONObject json() throws WaymarkException {
            try {
                return new JSONObject(body);
            } catch (JSONException error) {
                throw new WaymarkException(status, "bad_response", "the server's answer is not JSON");
            }
        }

        /** The API's error, from the body when it has one. */
        WaymarkException error() {
            try {
                JSONObject error = new JSONObject(body).getJSONObject("error");
                return new WaymarkException(status, error.getString("code"), error.getString("message"));
            } catch (JSONException notTheAPIs) {
                return new WaymarkException(status, "http_" + status, "the server answered " + status);
            }
        }
    }

    final String server;
    private final String key;
    private final int connectTimeout;
    private final int readTimeout;

    Transport(String server, String key, int connectTimeout, int readTimeout) {
        this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        this.key = key;
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    Answer get(String path, String etag, String userHash) throws WaymarkException {
        return send("GET", path, null, etag, userHash);
    }

    Answer post(String path, JSONObject body) throws WaymarkException {
        return send("POST", path, body.toString(), null, null);
    }

    private Answer send(String method, String path, String body, String etag, String userHash) throws WaymarkException {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) new URL(server + path).openConnection();
            connection.setRequestMethod(method);
            connection.setConnectTimeout(connectTimeout);
            connection.setReadTimeout(readTimeout);
            connection.setUseCaches(false);
            connection.setInstanceFollowRedirects(false);
            connection.setRequestProperty("Authorization", "Bearer " + key);
            connection.setRequestProperty("Accept", "application/json");
            if (etag != null) connection.setRequestProperty("If-None-Match", etag);
            if (userHash != null) connection.setRequestProperty("Waymark-User-Hash", userHash);
            if (body != null) {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                connection.setDoOutput(true);
                connection.setFixedLengthStreamingMode(bytes.length);
                connection.setRequestProperty("Content-Type", "application/json");
                OutputStream out = connection.getOutputStream();
                try {
                    out.write(bytes);
                } finally {
                    out.close();
                }
            }
            int status = connection.getResponseCode();
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            return new Answer(status, connection.getHeaderField("ETag"), read(in));
        } catch (IOException error) {
            throw new WaymarkException(0, "unreachable", "no answer from " + server + ": " + error.getMessage());
        } finally {
            if (connection != null) connection.disconnect();
        }
    }

    private static String read(InputStream in) throws IOException {
        if (in == null) return "";
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0;) out.write(buffer, 0, n);
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        } finally {
            in.close();
        }
    }
}
