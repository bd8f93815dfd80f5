package dev.waymark.client;

/** A named element on a captured screen (an anchor a tip can point at, or an area a tip can show in) and where it is, in the screen's points. */
public final class CapturedFrame {
    public final String name;
    public final double x;
    public final double y;
    public final double width;
    public final double height;

    public CapturedFrame(String name, double x, double y, double width, double height) {
        this.name = name;
        this.x = x;
        this.y = y;
        this.width = width;
        this.height = height;
    }
}
