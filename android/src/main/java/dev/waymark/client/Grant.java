package dev.waymark.client;

import org.json.JSONObject;

/** Credits granted to the user for a tour page or a completed checklist, as the server answered a claim. */
public final class Grant {
    /** The grant's id: the same for every claim of the same page or checklist, on any device. */
    public final String grantId;
    /** The credits granted. */
    public final int credits;
    /** The user's balance after the grant. */
    public final int balance;
    /** Whether this claim made the grant; false when it was granted before (here, on another device, or earlier). */
    public final boolean created;

    Grant(String grantId, int credits, int balance, boolean created) {
        this.grantId = grantId;
        this.credits = credits;
        this.balance = balance;
        this.created = created;
    }

    static Grant from(JSONObject json, boolean created) {
        return new Grant(json.optString("grantId"), json.optInt("credits"), json.optInt("balance"), created);
    }

    @Override public String toString() {
        return "grant " + grantId + ": " + credits + " credits, balance " + balance + (created ? " (new)" : "");
    }
}
