package dev.waymark.bench;

import dev.waymark.engine.Engine;
import dev.waymark.engine.Evaluator;
import dev.waymark.rules.Rule;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine benchmark's workload (Benchmarks/Benchmarks/EngineBenchmarks, made by the same
 * generator, so the same 1,000 tips and 1,000 events): 1,000 tips over 200 event names with plain,
 * count, windowed, THEN, NOT and comparison terms; events 50 ms apart, a quarter with targets.
 * Warms up, then times runs of {@code events} events each on one thread, and reads the thread's
 * allocated bytes around each run (com.sun.management.ThreadMXBean).
 *
 * <pre>android/make bench [events per run] [runs]</pre>
 */
public final class EngineBenchmark {
    static final long START = 1_767_225_600_000L;

    long state = 7;
    final List<Engine.Tip> tips = new ArrayList<Engine.Tip>();
    final List<String> names = new ArrayList<String>();
    final List<String> targets = new ArrayList<String>();
    final List<Map<String, Object>> properties = new ArrayList<Map<String, Object>>();

    int next(int bound) {
        state = state * 6_364_136_223_846_793_005L + 1_442_695_040_888_963_407L;
        return (int) Long.remainderUnsigned(state >>> 33, bound);
    }

    String name() { return "e" + next(200); }

    String event(boolean withProperties) {
        String pattern = next(4) == 0 ? name() + ":t" + next(4) : name();
        if (!withProperties || next(5) != 0) return pattern;
        return next(2) == 0 ? pattern + " where amount >= " + 100 * next(20) : pattern + " where cod == true AND amount in [100, 200, 500]";
    }

    String attribute() {
        switch (next(3)) {
            case 0: return "user.cityTier <= " + (1 + next(3));
            case 1: return "user.plan in [\"plus\", \"gold\"]";
            default: return "user.codUser == true";
        }
    }

    String term(boolean withProperties) {
        if (withProperties && next(5) == 0) return attribute();
        switch (next(8)) {
            case 0: return event(withProperties);
            case 1: return "count(" + event(withProperties) + ") >= " + (2 + next(20));
            case 2: return "count(" + event(withProperties) + ") >= " + (2 + next(5)) + " within " + (1 + next(10)) + "m";
            case 3: return event(withProperties) + " within " + (10 + next(50)) + "s";
            case 4: return event(withProperties) + " THEN " + event(withProperties) + " within " + (1 + next(30)) + "m";
            case 5: return "NOT " + event(withProperties);
            case 6: return "app.version >= v1." + next(6);
            default: return "device.platform in [\"ios\", \"android\"]";
        }
    }

    EngineBenchmark(boolean withProperties) throws Exception {
        for (int index = 0; index < 1_000; index++) {
            String a = term(withProperties);
            String b = term(withProperties);
            String c = term(withProperties);
            Rule trigger = Rule.parse("(" + a + " AND " + b + ") OR " + c);
            Rule dismissal = next(2) == 0
                ? Rule.parse("count(" + event(withProperties) + ") >= " + (50 + next(200)))
                : Rule.parse(event(withProperties) + " THEN " + event(withProperties) + " THEN " + event(withProperties));
            String container = "c" + next(40);
            tips.add(new Engine.Tip("tip" + index, container, null, trigger, dismissal, next(5), null, 0, null));
        }
        for (int i = 0; i < 1_000; i++) {
            if (next(4) == 0) {
                names.add(name());
                targets.add("t" + next(4));
            } else {
                names.add(name());
                targets.add(null);
            }
            Map<String, Object> values = Collections.emptyMap();
            if (withProperties && next(5) == 0) {
                values = new HashMap<String, Object>();
                values.put("amount", (double) (100 * next(20)));
                values.put("cod", next(2) == 0);
            }
            properties.add(values);
        }
    }

    static com.sun.management.ThreadMXBean threads() {
        return (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    }

    /** Records {@code count} events, 50 ms apart, from {@code time}; returns the commands that came out. */
    long feed(Engine engine, int count, long[] clock) {
        long random = 42;
        long commands = 0;
        for (int i = 0; i < count; i++) {
            random = random * 6_364_136_223_846_793_005L + 1_442_695_040_888_963_407L;
            int index = (int) Long.remainderUnsigned(random >>> 33, names.size());
            clock[0] += 50;
            commands += engine.record(names.get(index), targets.get(index), clock[0], properties.get(index)).size();
        }
        return commands;
    }

    long feed(Evaluator evaluator, int count, long[] clock) {
        long random = 42;
        for (int i = 0; i < count; i++) {
            random = random * 6_364_136_223_846_793_005L + 1_442_695_040_888_963_407L;
            int index = (int) Long.remainderUnsigned(random >>> 33, names.size());
            clock[0] += 50;
            evaluator.record(names.get(index), targets.get(index), clock[0], null);
        }
        return evaluator.value(0) ? 1 : 0;
    }

    /** A run: made (the engine built, its context set) before the clock starts, then fed. */
    interface Run {
        Feed prepare();
    }

    interface Feed {
        long feed(int count);
    }

    static void measure(String what, int events, int runs, Run run) {
        long thread = Thread.currentThread().getId();
        run.prepare().feed(Math.min(events, 200_000)); // warm-up: the JIT compiles the hot paths
        List<Double> perEvent = new ArrayList<Double>();
        double bytes = 0;
        long sink = 0;
        for (int i = 0; i < runs; i++) {
            Feed feed = run.prepare();
            long allocatedBefore = threads().getThreadAllocatedBytes(thread);
            long start = System.nanoTime();
            sink += feed.feed(events);
            long elapsed = System.nanoTime() - start;
            bytes = (double) (threads().getThreadAllocatedBytes(thread) - allocatedBefore) / events;
            perEvent.add((double) elapsed / events);
        }
        Collections.sort(perEvent);
        double median = perEvent.get(perEvent.size() / 2);
        System.out.printf(java.util.Locale.ROOT,
            "%-40s %8.1f ns/event (p50 of %d runs of %,d), %5.2f million events/s, %.3f bytes allocated per event  [%d]%n",
            what, median, runs, events, 1000.0 / median, bytes, sink % 10);
    }

    public static void main(String[] arguments) throws Exception {
        int events = arguments.length > 0 ? Integer.parseInt(arguments[0]) : 10_000_000;
        int runs = arguments.length > 1 ? Integer.parseInt(arguments[1]) : 5;
        System.out.println("Java " + System.getProperty("java.version") + ", " + System.getProperty("os.arch"));
        final EngineBenchmark plain = new EngineBenchmark(false);
        measure("Engine: 1,000 tips, 200 names", events, runs, () -> {
            Engine engine = new Engine(plain.tips, "immediate");
            Map<String, Object> context = new HashMap<String, Object>();
            context.put("app.version", "1.4.0");
            context.put("device.platform", "ios");
            long[] clock = {START};
            engine.setContext(context, clock[0]);
            return count -> plain.feed(engine, count, clock);
        });
        final EngineBenchmark withProperties = new EngineBenchmark(true);
        measure("Engine with properties and attributes", events, runs, () -> {
            Engine engine = new Engine(withProperties.tips, "immediate");
            Map<String, Object> context = new HashMap<String, Object>();
            context.put("app.version", "1.4.0");
            context.put("device.platform", "ios");
            context.put("user.plan", "plus");
            context.put("user.cityTier", 2.0);
            context.put("user.codUser", true);
            long[] clock = {START};
            engine.setContext(context, clock[0]);
            return count -> withProperties.feed(engine, count, clock);
        });
        measure("Evaluator only: 2,000 rules", events, runs, () -> {
            List<Rule> rules = new ArrayList<Rule>();
            for (Engine.Tip tip : plain.tips) {
                rules.add(tip.trigger);
                rules.add(tip.dismissal);
            }
            Evaluator evaluator = new Evaluator(rules);
            long[] clock = {START};
            return count -> plain.feed(evaluator, count, clock);
        });
    }
}
