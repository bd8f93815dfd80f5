package dev.waymark.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads a rule's text, with a {@link RuleError} that says where and why it is not a rule: the
 * same grammar, messages and positions (in code points) as the Swift and JavaScript parsers.
 */
final class RuleParser {
    private static final String ATOM_EXPECTATION = "an event, a comparison, count(...), true, false, NOT or (";
    private static final String LITERAL_EXPECTATION =
        "a literal: a number, a \"string\", true, false, a version such as v1.3 or a time such as 2026-01-15";
    private static final String TIME_EXPECTATION =
        "a date such as 2026-01-15 or a time such as 2026-01-15T10:30:00Z or 2026-01-15T16:00:00+05:30";
    private static final String COMPARATOR_EXPECTATION = "a comparison operator: ==, !=, >=, <=, > or <";
    private static final int END = -1;

    private final int[] chars;
    private int pos;
    private int depth;

    RuleParser(String text) {
        chars = text.codePoints().toArray();
    }

    Rule parse() throws RuleError {
        if (chars.length > Rule.MAX_LENGTH) {
            throw error("tooLong", "the rule is longer than " + grouped(Rule.MAX_LENGTH) + " characters", null, Rule.MAX_LENGTH);
        }
        Rule rule = parseOr();
        skipSpace();
        if (!atEnd()) throw unexpected("AND, OR or the end of the rule");
        return rule;
    }

    private boolean atEnd() { return pos >= chars.length; }

    private int at(int index) { return index < chars.length ? chars[index] : END; }

    private int cur() { return at(pos); }

    private static boolean isDigit(int c) { return c >= '0' && c <= '9'; }

    private static boolean isNameChar(int c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || isDigit(c) || c == '_' || c == '-';
    }

    private static String grouped(long number) { return String.format(Locale.ROOT, "%,d", number); }

    private Rule parseOr() throws RuleError {
        List<Rule> operands = new ArrayList<Rule>();
        operands.add(parseAnd());
        while (consumeKeyword("or")) operands.add(parseAnd());
        return operands.size() == 1 ? operands.get(0) : new Rule.Junction(false, operands);
    }

    private Rule parseAnd() throws RuleError {
        List<Rule> operands = new ArrayList<Rule>();
        operands.add(parseNot());
        while (consumeKeyword("and")) operands.add(parseNot());
        return operands.size() == 1 ? operands.get(0) : new Rule.Junction(true, operands);
    }

    private Rule parseNot() throws RuleError {
        skipSpace();
        int start = pos;
        if (consumeKeyword("not")) {
            enterLevel(start);
            Rule operand = parseNot();
            depth -= 1;
            return new Rule.Not(operand);
        }
        return parseAtom();
    }

    private Rule parseAtom() throws RuleError {
        skipSpace();
        int start = pos;
        int c = cur();
        if (c == END) throw unexpected(ATOM_EXPECTATION);
        if (c == '(') {
            enterLevel(start);
            pos += 1;
            Rule inner = parseOr();
            skipSpace();
            if (cur() != ')') throw unexpected("AND, OR or )");
            pos += 1;
            depth -= 1;
            return inner;
        }
        if (!isNameChar(c)) throw unexpected(ATOM_EXPECTATION);
        String word = peekWord();
        String lower = word.toLowerCase(Locale.ROOT);
        if (lower.equals("true") || lower.equals("false")) {
            pos += word.length();
            return new Rule.Const(lower.equals("true"));
        }
        if (lower.equals("count")) {
            pos += word.length();
            return parseCount();
        }
        if (Rule.KEYWORDS.contains(lower)) throw unexpected(ATOM_EXPECTATION);
        if (at(pos + word.length()) == '.') return parseComparison();
        return parseSequence();
    }

    private Rule parseSequence() throws RuleError {
        List<Rule.EventPattern> events = new ArrayList<Rule.EventPattern>();
        events.add(parseEvent());
        while (consumeKeyword("then")) {
            skipSpace();
            events.add(parseEvent());
        }
        return new Rule.Sequence(events, parseOptionalWindow());
    }

    private Rule parseCount() throws RuleError {
        skipSpace();
        if (cur() != '(') throw unexpected("( after count");
        pos += 1;
        skipSpace();
        Rule.EventPattern event = parseEvent();
        skipSpace();
        if (cur() != ')') throw unexpected(")");
        pos += 1;
        String cmp = parseComparator(COMPARATOR_EXPECTATION);
        skipSpace();
        int start = pos;
        long threshold = readInteger();
        if (threshold < 0 || cur() == '.') {
            pos = start;
            throw unexpected("a whole number from 0 to " + grouped(Rule.MAX_COUNT));
        }
        if (threshold > Rule.MAX_COUNT) {
            throw error("outOfRange", "count threshold " + threshold + " is larger than " + grouped(Rule.MAX_COUNT), null, start);
        }
        return new Rule.Count(event, cmp, (int) threshold, parseOptionalWindow());
    }

    private Rule parseComparison() throws RuleError {
        StringBuilder path = new StringBuilder(parseName());
        while (cur() == '.') {
            pos += 1;
            path.append('.').append(parseName());
        }
        return new Rule.Comparison(path.toString(), parseTest());
    }

    /** What follows a path or a property: {@code op literal}, or {@code in [literal, ...]}. */
    private Rule.Test parseTest() throws RuleError {
        if (consumeKeyword("in")) {
            skipSpace();
            if (cur() != '[') throw unexpected("[ after in");
            pos += 1;
            List<Object> literals = new ArrayList<Object>();
            literals.add(parseLiteral());
            while (true) {
                skipSpace();
                if (cur() == ',') {
                    pos += 1;
                    literals.add(parseLiteral());
                } else if (cur() == ']') {
                    pos += 1;
                    return Rule.Test.among(literals);
                } else {
                    throw unexpected(", or ]");
                }
            }
        }
        skipSpace();
        int operatorStart = pos;
        String cmp = parseComparator(COMPARATOR_EXPECTATION + ", or in");
        Object value = parseLiteral();
        if (value instanceof Boolean && !cmp.equals("==") && !cmp.equals("!=")) {
            throw error("invalidComparison", "operator " + cmp + " does not apply to booleans", "== or !=", operatorStart);
        }
        return Rule.Test.comparing(cmp, value);
    }

    private Rule.EventPattern parseEvent() throws RuleError {
        String name = parseName();
        String target = null;
        if (cur() == ':') {
            pos += 1;
            target = parseName();
        }
        if (!consumeKeyword("where")) return new Rule.EventPattern(name, target, null);
        List<Rule.PropertyTest> where = new ArrayList<Rule.PropertyTest>();
        where.add(parsePropertyTest());
        // An AND goes on with the conditions only before another property test: what may follow an
        // event in a rule (an event, count, a dotted path, NOT, a parenthesis) never reads as one.
        while (atPropertyTestAfterAnd()) {
            consumeKeyword("and");
            where.add(parsePropertyTest());
        }
        return new Rule.EventPattern(name, target, where);
    }

    private Rule.PropertyTest parsePropertyTest() throws RuleError {
        skipSpace();
        if (!isNameChar(cur())) throw unexpected("a property test such as amount >= 500 or category in [\"tv\"]");
        String prop = parseName();
        if (cur() == '.') throw error("syntax", "a property's name has no dots", COMPARATOR_EXPECTATION + ", or in", pos);
        return new Rule.PropertyTest(prop, parseTest());
    }

    private boolean atPropertyTestAfterAnd() {
        int saved = pos;
        boolean answer = false;
        if (consumeKeyword("and")) {
            skipSpace();
            String word = isNameChar(cur()) ? peekWord() : "";
            if (!word.isEmpty() && !Rule.KEYWORDS.contains(word.toLowerCase(Locale.ROOT))) {
                pos += word.length();
                if (consumeKeyword("in")) {
                    answer = true;
                } else {
                    skipSpace();
                    int c = cur();
                    answer = c == '=' || c == '!' || c == '<' || c == '>';
                }
            }
        }
        pos = saved;
        return answer;
    }

    private String parseName() throws RuleError {
        int start = pos;
        if (!isNameChar(cur())) throw unexpected("a name");
        String word = peekWord();
        if (Rule.KEYWORDS.contains(word.toLowerCase(Locale.ROOT))) {
            throw error("reservedWord", "\"" + word + "\" is a keyword and cannot be a name", null, start);
        }
        pos += word.length();
        return word;
    }

    private String parseComparator(String expected) throws RuleError {
        skipSpace();
        for (String cmp : Rule.COMPARATORS) {
            boolean matches = cmp.length() == 2 ? cur() == cmp.charAt(0) && at(pos + 1) == cmp.charAt(1) : cur() == cmp.charAt(0);
            if (matches) {
                pos += cmp.length();
                return cmp;
            }
        }
        throw unexpected(expected);
    }

    private Object parseLiteral() throws RuleError {
        skipSpace();
        int start = pos;
        int c = cur();
        if (c == END) throw unexpected(LITERAL_EXPECTATION);
        if (c == '"') return parseString();
        // Four digits then "-": a date, which no number can be.
        if (isDigit(c) && isDigit(at(pos + 1)) && isDigit(at(pos + 2)) && isDigit(at(pos + 3)) && at(pos + 4) == '-') {
            while (isTimeChar(cur())) pos += 1;
            String text = text(start, pos);
            Long moment = Values.readMoment(text);
            if (moment == null) throw error("syntax", "invalid time \"" + text + "\"", TIME_EXPECTATION, start);
            String printed = Values.formatTime(moment);
            return new Rule.TimeLiteral(moment % 86_400_000L == 0 ? printed.substring(0, 10) : printed);
        }
        if (c == '-' || isDigit(c)) return parseNumber();
        if ((c == 'v' || c == 'V') && isDigit(at(pos + 1))) {
            pos += 1;
            StringBuilder version = new StringBuilder();
            boolean first = true;
            do {
                if (!first) {
                    pos += 1;
                    version.append('.');
                }
                first = false;
                int componentStart = pos;
                long value = readInteger();
                if (value < 0) {
                    pos = start;
                    throw error("syntax", "invalid version \"" + peekWordOrLiteral() + "\"", LITERAL_EXPECTATION, start);
                }
                if (value > Integer.MAX_VALUE) throw error("outOfRange", "version component is too large", null, componentStart);
                version.append(value);
            } while (cur() == '.' && isDigit(at(pos + 1)));
            expectLiteralEnd(start);
            return new Rule.VersionLiteral(version.toString());
        }
        if (isNameChar(c)) {
            String word = peekWord();
            String lower = word.toLowerCase(Locale.ROOT);
            if (lower.equals("true") || lower.equals("false")) {
                pos += word.length();
                return lower.equals("true");
            }
            throw error("syntax", "unexpected \"" + word + "\"", "a literal (strings are written in quotes: \"" + word + "\")", start);
        }
        throw unexpected(LITERAL_EXPECTATION);
    }

    private static boolean isTimeChar(int c) {
        return isNameChar(c) || c == ':' || c == '.' || c == '+';
    }

    private String parseString() throws RuleError {
        int start = pos;
        pos += 1;
        StringBuilder text = new StringBuilder();
        while (cur() != END) {
            int c = cur();
            pos += 1;
            if (c == '"') return text.toString();
            if (c == '\\') {
                int escaped = cur();
                if (escaped != '"' && escaped != '\\') throw error("syntax", "unknown escape in a string", "\\\" or \\\\", pos - 1);
                text.appendCodePoint(escaped);
                pos += 1;
            } else {
                text.appendCodePoint(c);
            }
        }
        throw error("syntax", "unterminated string", "a closing \"", start);
    }

    private Object parseNumber() throws RuleError {
        int start = pos;
        if (cur() == '-') pos += 1;
        if (readDigits() == 0) {
            pos = start;
            throw error("syntax", "invalid number \"" + peekWordOrLiteral() + "\"", LITERAL_EXPECTATION, start);
        }
        if (cur() == '.' && isDigit(at(pos + 1))) {
            pos += 1;
            readDigits();
        }
        expectLiteralEnd(start);
        String text = text(start, pos);
        double value = Double.parseDouble(text);
        if (Double.isInfinite(value)) throw error("outOfRange", "number " + text + " is too large", null, start);
        return value;
    }

    private void expectLiteralEnd(int start) throws RuleError {
        if (isNameChar(cur()) || cur() == '.') {
            pos = start;
            throw error("syntax", "invalid literal \"" + peekWordOrLiteral() + "\"", LITERAL_EXPECTATION, start);
        }
    }

    private String parseOptionalWindow() throws RuleError {
        if (!consumeKeyword("within")) return null;
        skipSpace();
        int start = pos;
        String word = isNameChar(cur()) ? peekWord() : "";
        String expected = "a duration such as 30s, 5m, 2h, 7d or 1w";
        if (word.isEmpty()) throw unexpected(expected);
        char unit = word.charAt(word.length() - 1);
        String digits = word.substring(0, word.length() - 1);
        boolean allDigits = !digits.isEmpty();
        for (int i = 0; i < digits.length(); i++) allDigits &= isDigit(digits.charAt(i));
        if (word.length() < 2 || Rule.unitMillis(unit) < 0 || !allDigits) {
            throw error("syntax", "invalid duration \"" + word + "\"", expected, start);
        }
        long maxAmount = Rule.MAX_WINDOW_DAYS * 86_400_000L / Rule.unitMillis(unit);
        String trimmed = digits.replaceFirst("^0+(?=.)", "");
        if (trimmed.length() > 12 || Long.parseLong(trimmed) > maxAmount) {
            throw error("outOfRange", "window " + word + " is longer than " + grouped(Rule.MAX_WINDOW_DAYS) + " days", null, start);
        }
        pos += word.length();
        return trimmed + unit;
    }

    private void skipSpace() {
        while (cur() == ' ' || cur() == '\t' || cur() == '\n' || cur() == '\r') pos += 1;
    }

    private boolean consumeKeyword(String keyword) {
        int saved = pos;
        skipSpace();
        if (isNameChar(cur()) && peekWord().toLowerCase(Locale.ROOT).equals(keyword)) {
            pos += keyword.length();
            return true;
        }
        pos = saved;
        return false;
    }

    private String peekWord() {
        int end = pos;
        while (isNameChar(at(end))) end += 1;
        return text(pos, end);
    }

    private String peekWordOrLiteral() {
        int end = pos;
        while (isNameChar(at(end)) || at(end) == '.') end += 1;
        return text(pos, end);
    }

    private String text(int start, int end) { return new String(chars, start, end - start); }

    private int readDigits() {
        int start = pos;
        while (isDigit(cur())) pos += 1;
        return pos - start;
    }

    /** Digits as a whole number (saturating), or -1 when none or when a name runs on. */
    private long readInteger() {
        if (!isDigit(cur())) return -1;
        int start = pos;
        long value = 0;
        while (isDigit(cur())) {
            value = Math.min(value * 10 + (cur() - '0'), Values.MAX_SAFE_INTEGER);
            pos += 1;
        }
        if (isNameChar(cur())) {
            pos = start;
            return -1;
        }
        return value;
    }

    private void enterLevel(int start) throws RuleError {
        depth += 1;
        if (depth > Rule.MAX_DEPTH) throw error("tooDeep", "the rule nests deeper than " + Rule.MAX_DEPTH + " levels", null, start);
    }

    private RuleError unexpected(String expected) {
        int c = cur();
        if (c == END) return error("syntax", "unexpected end of the rule", expected, pos);
        String found;
        if (isNameChar(c)) {
            found = "\"" + peekWord() + "\"";
        } else if (c == '"') {
            found = "string";
        } else if (Character.isWhitespace(c) || Character.isSpaceChar(c) || c < 0x20 || c == 0x7f) {
            found = String.format(Locale.ROOT, "character U+%X", c);
        } else {
            found = "\"" + new String(Character.toChars(c)) + "\"";
        }
        return error("syntax", "unexpected " + found, expected, pos);
    }

    private RuleError error(String code, String message, String expected, int offset) {
        int line = 1;
        int column = 1;
        for (int i = 0; i < Math.min(offset, chars.length); i++) {
            if (chars[i] == '\n') {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        if (offset > chars.length) column += offset - chars.length;
        return new RuleError(code, message, expected, line, column, offset);
    }
}
