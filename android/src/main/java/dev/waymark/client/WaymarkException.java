package dev.waymark.client;

/** Why a call to the server failed: its status (or none, when no answer came), the API's code, and a sentence for people. */
public final class WaymarkException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The HTTP status, or 0 when no answer came (offline, refused, timed out). */
    public final int status;
    /** The API's error code ({@code unauthorized}, {@code not_read}...), {@code unreachable} or {@code bad_response}. */
    public final String code;

    public WaymarkException(int status, String code, String message) {
        super(status > 0 ? status + " " + code + ": " + message : code + ": " + message);
        this.status = status;
        this.code = code;
    }

    /** Whether the same request may succeed later: no answer, a server failure, or too many requests. */
    public boolean isTransient() { return status == 0 || status >= 500 || status == 429 || status == 408; }
}
