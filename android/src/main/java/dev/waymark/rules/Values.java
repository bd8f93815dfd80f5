package dev.waymark.rules;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the rule language compares a value with a literal (numbers, strings by code point, versions
 * by their parts, times by their milliseconds), and RFC 3339 times read and written. The same
 * semantics as the Swift WaymarkRules and waymark.js, checked by the shared cases in conformance/.
 *
 * <p>Values are {@link Double} (any {@link Number} is read as one), {@link String}, {@link Boolean},
 * {@link Moment} and {@link Version}.
 */
public final class Values {
    private Values() {}

    /** A point in time, in milliseconds since 1970: what a time context value or literal holds. */
    public static final class Moment {
        public final long millis;

        public Moment(long millis) { this.millis = millis; }

        @Override public boolean equals(Object other) { return other instanceof Moment && ((Moment) other).millis == millis; }
        @Override public int hashCode() { return Long.hashCode(millis); }
        @Override public String toString() { return formatTime(millis); }
    }

    /** An app version such as 5.2.1, as a context value or a literal ({@code v5.2.1} in a rule). */
    public static final class Version {
        public final String text;
        final long[] parts;

        /** The version of digits and dots, or an error for any other text. */
        public Version(String text) {
            long[] read = readVersion(text);
            if (read == null) throw new IllegalArgumentException("not a version of digits and dots: " + text);
            this.text = text;
            this.parts = read;
        }

        @Override public boolean equals(Object other) { return other instanceof Version && ((Version) other).text.equals(text); }
        @Override public int hashCode() { return text.hashCode(); }
        @Override public String toString() { return text; }
    }

    /** The comparison operators as numbers, in {@link Rule#COMPARATORS}' order: what the hot paths switch on. */
    public static final int EQUAL = 0, NOT_EQUAL = 1, AT_LEAST = 2, AT_MOST = 3, ABOVE = 4, BELOW = 5;

    /** An operator's number ({@link #EQUAL}...), from its text ({@code ==}...). */
    public static int operator(String cmp) {
        int index = Rule.COMPARATORS.indexOf(cmp);
        if (index < 0) throw new IllegalArgumentException("not a comparison operator: " + cmp);
        return index;
    }

    /** Whether a comparison operator, by its number, holds for an order (-1, 0, 1). */
    public static boolean holds(int op, int order) {
        switch (op) {
            case EQUAL: return order == 0;
            case NOT_EQUAL: return order != 0;
            case AT_LEAST: return order >= 0;
            case AT_MOST: return order <= 0;
            case ABOVE: return order > 0;
            default: return order < 0;
        }
    }

    /** A value compared with a literal by an operator's number ({@link #EQUAL}...): a missing value or one of another type is false, even for !=. */
    public static boolean compare(Object value, int cmp, Object literal) {
        if (value == null) return false;
        if (literal instanceof Double) {
            if (!(value instanceof Number)) return false;
            double x = ((Number) value).doubleValue();
            double y = (Double) literal;
            return holds(cmp, x == y ? 0 : x < y ? -1 : 1);
        }
        if (literal instanceof String) return value instanceof String && holds(cmp, compareStrings((String) value, (String) literal));
        if (literal instanceof Boolean) {
            if (!(value instanceof Boolean)) return false;
            if (cmp == EQUAL) return value.equals(literal);
            return cmp == NOT_EQUAL && !value.equals(literal);
        }
        if (literal instanceof Rule.TimeLiteral) {
            return value instanceof Moment && holds(cmp, Long.compare(((Moment) value).millis, ((Rule.TimeLiteral) literal).millis));
        }
        long[] version = value instanceof Version ? ((Version) value).parts : value instanceof String ? readVersion((String) value) : null;
        return version != null && holds(cmp, compareVersions(version, ((Rule.VersionLiteral) literal).version.parts));
    }

    /**
     * A value from its JSON form, as the API and snapshots write values: a number, a string, a
     * boolean, {@code {"time": "2026-01-15T10:30:00Z"}} (or milliseconds) or {@code {"version":
     * "5.2.1"}}; null for anything else (JSON's null, a time or version that does not read).
     */
    public static Object fromJSON(Object json) {
        if (json instanceof Number) return ((Number) json).doubleValue();
        if (json instanceof String || json instanceof Boolean) return json;
        if (!(json instanceof org.json.JSONObject)) return null;
        org.json.JSONObject object = (org.json.JSONObject) json;
        Object time = object.opt("time");
        if (time instanceof Number) return new Moment(((Number) time).longValue());
        if (time instanceof String) {
            Long millis = readMoment((String) time);
            return millis == null ? null : new Moment(millis);
        }
        Object version = object.opt("version");
        if (!(version instanceof String) || readVersion((String) version) == null) return null;
        return new Version((String) version);
    }

    /** Strings in code point order, which is the UTF-8 byte order the language specifies. */
    public static int compareStrings(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) return x < y ? -1 : 1;
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        boolean aDone = i >= a.length();
        boolean bDone = j >= b.length();
        return aDone && bDone ? 0 : aDone ? -1 : 1;
    }

    static int compareVersions(long[] a, long[] b) {
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            long x = i < a.length ? a[i] : 0;
            long y = i < b.length ? b[i] : 0;
            if (x != y) return x < y ? -1 : 1;
        }
        return 0;
    }

    /** A version of digits and dots as numbers, or null. */
    static long[] readVersion(String text) {
        if (text.isEmpty()) return null;
        String[] components = text.split("\\.", -1);
        long[] parts = new long[components.length];
        for (int i = 0; i < components.length; i++) {
            String component = components[i];
            if (component.isEmpty() || component.length() > 16) return null;
            for (int k = 0; k < component.length(); k++) {
                if (component.charAt(k) < '0' || component.charAt(k) > '9') return null;
            }
            parts[i] = Long.parseLong(component);
            if (parts[i] > MAX_SAFE_INTEGER) return null;
        }
        return parts;
    }

    /** The largest whole number a double holds exactly, as JavaScript's Number.MAX_SAFE_INTEGER. */
    static final long MAX_SAFE_INTEGER = 9007199254740991L;

    private static final Pattern DATE = Pattern.compile("\\d{4}-\\d\\d-\\d\\d");
    private static final Pattern TIME = Pattern.compile(
        "(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?(?:([Zz])|([+-])(\\d{2}):(\\d{2}))");
    private static final long EARLIEST = -62167219200000L;
    private static final long LATEST = 253402300799999L;

    /** Milliseconds for a rule's time: a date (midnight UTC) or an RFC 3339 date-time, years 0000 to 9999; null otherwise. */
    public static Long readMoment(String text) {
        if (text.indexOf(' ') >= 0) return null;
        Long millis = parseTime(DATE.matcher(text).matches() ? text + "T00:00:00Z" : text);
        return millis != null && millis >= EARLIEST && millis <= LATEST ? millis : null;
    }

    /** Milliseconds since 1970 for an RFC 3339 date-time, or null. */
    public static Long parseTime(String text) {
        Matcher m = TIME.matcher(text);
        if (!m.matches()) return null;
        int year = Integer.parseInt(m.group(1));
        int month = Integer.parseInt(m.group(2));
        int day = Integer.parseInt(m.group(3));
        int hour = Integer.parseInt(m.group(4));
        int minute = Integer.parseInt(m.group(5));
        int second = Integer.parseInt(m.group(6));
        if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 60) return null;
        int millis = m.group(7) != null ? Integer.parseInt((m.group(7) + "00").substring(0, 3)) : 0;
        int offset = 0;
        if (m.group(8) == null) {
            int offsetHours = Integer.parseInt(m.group(10));
            int offsetMinutes = Integer.parseInt(m.group(11));
            if (offsetHours > 23 || offsetMinutes > 59) return null;
            offset = (m.group(9).equals("-") ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
        }
        // A leap second reads as the next second, as JavaScript's Date does.
        long days = daysFromCivil(year, month, day);
        return ((days * 24 + hour) * 60 + minute) * 60_000L + second * 1000L + millis - offset * 60_000L;
    }

    /** RFC 3339 in UTC, with milliseconds only when there are any. */
    public static String formatTime(long millis) {
        long days = Math.floorDiv(millis, 86_400_000L);
        long inDay = Math.floorMod(millis, 86_400_000L);
        // Howard Hinnant's civil_from_days.
        long z = days + 719468;
        long era = (z >= 0 ? z : z - 146096) / 146097;
        long dayOfEra = z - era * 146097;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long mp = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * mp + 2) / 5 + 1;
        long month = mp < 10 ? mp + 3 : mp - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        StringBuilder text = new StringBuilder(24);
        pad(text, year, 4).append('-');
        pad(text, month, 2).append('-');
        pad(text, day, 2).append('T');
        pad(text, inDay / 3_600_000, 2).append(':');
        pad(text, inDay / 60_000 % 60, 2).append(':');
        pad(text, inDay / 1000 % 60, 2);
        if (inDay % 1000 != 0) pad(text.append('.'), inDay % 1000, 3);
        return text.append('Z').toString();
    }

    private static StringBuilder pad(StringBuilder text, long value, int width) {
        String digits = Long.toString(value);
        for (int i = digits.length(); i < width; i++) text.append('0');
        return text.append(digits);
    }

    private static int daysInMonth(int year, int month) {
        switch (month) {
            case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4: case 6: case 9: case 11: return 30;
            default: return 31;
        }
    }

    /** Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm). */
    private static long daysFromCivil(long year, int month, int day) {
        year -= month <= 2 ? 1 : 0;
        long era = (year >= 0 ? year : year - 399) / 400;
        long yearOfEra = year - era * 400;
        long dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146097 + dayOfEra - 719468;
    }
}
