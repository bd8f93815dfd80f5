package dev.waymark.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.waymark.rules.Rule;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Display time with sight reported by the renderer: the same steps and figures as the Swift and JavaScript engines' tests. */
class SightTest {
    private static long s(double seconds) { return (long) (seconds * 1000); }

    @Test
    void displayTimeStartsWhenTheTipIsSeen() throws Exception {
        Engine.Tip tip = new Engine.Tip("t", "home", null, Rule.parse("go"), null, 0, null, 0, new Engine.Policy(null, 10.0, null));
        Engine engine = new Engine(Collections.singletonList(tip), "immediate", null, true);
        assertEquals(Engine.Command.Action.SHOW, engine.record("go", null, s(0), null).get(0).action);
        assertTrue(engine.advance(s(500)).isEmpty(), "never seen: no display time");
        engine.setTip("t", true, s(500));
        engine.setContainer("home", false, s(504));
        engine.setContainer("home", true, s(600));
        assertTrue(engine.advance(s(700)).isEmpty(), "resumed out of sight until seen again");
        engine.setTip("t", true, s(700));
        assertEquals(4000, engine.progress().getJSONObject("t").getLong("displayedMillis"));
        List<Engine.Command> commands = engine.advance(s(800));
        assertEquals(1, commands.size());
        assertEquals(Engine.Command.Reason.MAX_DISPLAY_DURATION, commands.get(0).reason);
        assertEquals(s(706), commands.get(0).time);
    }
}
