package dev.waymark.client;

import java.util.Set;

/** One checklist as the app draws it: the delivered checklist and the user's progress with it. */
public final class ChecklistStatus {
    /** The checklist, its items in order. */
    public final DeliveredChecklist checklist;
    /** The ids of the items done (here or, once synced, on the user's other devices). */
    public final Set<String> done;
    /** Whether every item is done. */
    public final boolean completed;
    /** Whether its trigger has held (a checklist without one is offered from the start). */
    public final boolean offered;

    ChecklistStatus(DeliveredChecklist checklist, Set<String> done, boolean completed, boolean offered) {
        this.checklist = checklist;
        this.done = done;
        this.completed = completed;
        this.offered = offered;
    }

    /** How many of its items are done. */
    public int doneCount() {
        int count = 0;
        for (DeliveredChecklist.Item item : checklist.items) if (done.contains(item.id)) count += 1;
        return count;
    }
}
