package dev.waymark.client;

import java.security.SecureRandom;

/**
 * Event ids as UUID version 7 (RFC 9562): the 48-bit millisecond time first, then a 12-bit counter
 * so that ids made in one millisecond still sort in the order they were made, then random bits.
 * Time-ordered ids append to the end of the server's index; made once per event, they let a
 * retried upload be stored once. The same layout as the Swift and JavaScript SDKs.
 */
public final class EventID {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static long lastMillis;
    private static int counter;

    private EventID() {}

    /** A new id for an event made at {@code millis}, from one sequence for the whole process. */
    public static String make(long millis) {
        long time;
        int count;
        synchronized (EventID.class) {
            if (millis > lastMillis) {
                lastMillis = millis;
                // Start low in the counter's range so that many ids fit in this millisecond.
                counter = RANDOM.nextInt(0x400);
            } else if (counter < 0xFFF) {
                counter += 1;
            } else {
                lastMillis += 1;
                counter = 0;
            }
            time = lastMillis;
            count = counter;
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < 6; i++) bytes[i] = (byte) (time >>> (40 - 8 * i));
        bytes[6] = (byte) (0x70 | (count >>> 8));
        bytes[7] = (byte) count;
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        System.arraycopy(random, 0, bytes, 8, 8);
        bytes[8] = (byte) (0x80 | (bytes[8] & 0x3F));
        char[] text = new char[36];
        int at = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) text[at++] = '-';
            text[at++] = DIGITS[(bytes[i] >> 4) & 0xF];
            text[at++] = DIGITS[bytes[i] & 0xF];
        }
        return new String(text);
    }
}
