package dev.waymark.rules;

/**
 * An error in a rule's text: where it is, what is wrong, and what was expected there. The parser
 * never fails in any other way, whatever the text.
 *
 * <p>{@link #getMessage()} gives the one-line form ({@code unexpected ")" at 1:17, expected AND, OR
 * or the end of the rule}) and {@link #excerpt(String)} the form with a caret under the place.
 */
public final class RuleError extends Exception {
    private static final long serialVersionUID = 1L;

    /** The kind of error, stable for programs to test: syntax, tooLong, tooDeep, outOfRange, invalidComparison, reservedWord. */
    public final String code;
    /** What is wrong, as a short sentence fragment: {@code unexpected ")"}. */
    public final String reason;
    /** What the parser expected at this place, or null when it cannot say. */
    public final String expected;
    /** The 1-based line of the error in the rule's text. */
    public final int line;
    /** The 1-based column, counted in Unicode code points. */
    public final int column;
    /** The 0-based offset from the start of the text, in Unicode code points. */
    public final int offset;

    public RuleError(String code, String reason, String expected, int line, int column, int offset) {
        super(reason + " at " + line + ":" + column + (expected != null ? ", expected " + expected : ""));
        this.code = code;
        this.reason = reason;
        this.expected = expected;
        this.line = line;
        this.column = column;
        this.offset = offset;
    }

    /** The error with the rule's line it points into and a caret under the place. */
    public String excerpt(String source) {
        String[] lines = source.split("\n", -1);
        String lineText = line - 1 < lines.length ? lines[line - 1].replace('\t', ' ') : "";
        StringBuilder text = new StringBuilder("error: ").append(reason).append("\n --> rule:").append(line).append(':').append(column);
        text.append("\n  | ").append(lineText).append("\n  | ");
        for (int i = 1; i < column; i++) text.append(' ');
        text.append('^');
        if (expected != null) text.append(" expected ").append(expected);
        return text.toString();
    }
}
