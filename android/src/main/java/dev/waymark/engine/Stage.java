package dev.waymark.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One arbiter for everything an app draws of Waymark on a screen: from the surfaces that want it,
 * their kinds, priorities, order and measured rectangles, which show and which wait (until the
 * screen is free), as the web SDK decides (conformance/stage/cases.json). In order of rank (panel,
 * modal, tip, marker, dock), then higher priority, then earlier order: panels (what the user
 * opened) show; one modal (a tour, a modal tip, a spotlight) shows when no panel is open, and while
 * it does nothing else does; a tip or marker shows when it overlaps nothing that shows; the dock of
 * launcher buttons shows when no modal does and it overlaps nothing that shows. A surface without a
 * rectangle is away: it neither shows nor stands in the way.
 */
public final class Stage {
    private Stage() {}

    /** What a surface is, in the order the stage serves them. */
    public enum Kind { PANEL, MODAL, TIP, MARKER, DOCK }

    /** A rectangle on the screen; touching edges do not overlap. */
    public static final class Box {
        public final double left, top, right, bottom;

        public Box(double left, double top, double right, double bottom) {
            this.left = left;
            this.top = top;
            this.right = right;
            this.bottom = bottom;
        }

        boolean overlaps(Box o) { return left < o.right && o.left < right && top < o.bottom && o.top < bottom; }
    }

    /** Something that wants the screen; {@code box} null while it is away. */
    public static final class Surface {
        public final String id;
        public final Kind kind;
        public final int priority;
        public final int order;
        public final Box box;

        public Surface(String id, Kind kind, int priority, int order, Box box) {
            this.id = id;
            this.kind = kind;
            this.priority = priority;
            this.order = order;
            this.box = box;
        }
    }

    /** The ids of the surfaces that show; the others wait. */
    public static Set<String> arrange(List<Surface> surfaces) {
        List<Surface> sorted = new ArrayList<Surface>(surfaces);
        Collections.sort(sorted, new Comparator<Surface>() {
            @Override
            public int compare(Surface a, Surface b) {
                if (a.kind != b.kind) return a.kind.ordinal() - b.kind.ordinal();
                if (a.priority != b.priority) return Integer.compare(b.priority, a.priority);
                return Integer.compare(a.order, b.order);
            }
        });
        List<Surface> shown = new ArrayList<Surface>();
        boolean modal = false;
        for (Surface surface : sorted) {
            if (surface.box == null) continue;
            boolean free = true;
            for (Surface other : shown) if (surface.box.overlaps(other.box)) free = false;
            boolean show = surface.kind == Kind.PANEL || (!modal && (surface.kind == Kind.MODAL ? shown.isEmpty() : free));
            if (!show) continue;
            shown.add(surface);
            modal |= surface.kind == Kind.MODAL;
        }
        Set<String> ids = new LinkedHashSet<String>();
        for (Surface surface : shown) ids.add(surface.id);
        return ids;
    }
}
