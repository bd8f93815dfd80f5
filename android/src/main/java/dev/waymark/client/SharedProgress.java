package dev.waymark.client;

import dev.waymark.engine.Engine;
import java.util.Collections;
import java.util.List;
import org.json.JSONObject;

/**
 * The progress the user's devices share through the server ({@code POST /v1/progress}): one
 * document of the tips' progress (the engine's), the tours', the checklists' and the listener's
 * mode's choice, and the merge of the server's answer, the join of every device's. It counts the
 * changes made since the server last had them, so the background sync runs only when there is
 * something new. Not thread-safe: the client holds its lock.
 */
final class SharedProgress {
    /** A document on its way to the server, and how many changes it holds. */
    static final class Sent {
        final JSONObject progress;
        final long changes;

        Sent(JSONObject progress, long changes) {
            this.progress = progress;
            this.changes = changes;
        }
    }

    private long changes;
    private long shared;

    /** Something to share changed. */
    void changed() { changes += 1; }

    /** Whether there are changes the server has not had. */
    boolean unshared() { return changes != shared; }

    /** The document to send now. */
    Sent document(Engine engine, Tours tours, Checklists checklists, ListenersMode listening) {
        JSONObject progress = new JSONObject();
        Json.put(progress, "tips", engine.progress());
        Json.put(progress, "tours", tours.progress());
        Json.put(progress, "checklists", checklists.progress());
        if (listening.choice() != null) Json.put(progress, "listening", listening.choice());
        return new Sent(progress, changes);
    }

    /**
     * Takes in the server's join, its answer to {@code sent}: a tip the user closed or saw enough
     * of on another device does not come back, a tour finished there does not open by its trigger,
     * checklist items done there are done here, the latest choice of the listener's mode holds.
     * Answers the engine's commands for the tips it changed.
     */
    List<Engine.Command> merge(Sent sent, JSONObject merged, Engine engine, Tours tours, Checklists checklists, ListenersMode listening, long now) {
        boolean changedMeanwhile = changes != sent.changes;
        tours.merge(merged.optJSONObject("tours"));
        checklists.merge(merged.optJSONObject("checklists"));
        listening.merge(merged.optJSONObject("listening"));
        JSONObject tips = merged.optJSONObject("tips");
        List<Engine.Command> commands = tips != null ? engine.merge(tips, now) : Collections.<Engine.Command>emptyList();
        if (!commands.isEmpty()) changed();
        // What the merge changed the server already has; what happened meanwhile it has not.
        shared = changedMeanwhile ? sent.changes : changes;
        return commands;
    }
}
