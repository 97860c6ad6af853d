package io.vcorfu.layout;

/** The layout store holds no layout yet. */
public final class LayoutNotFoundException extends LayoutException {
  public LayoutNotFoundException(String where) {
    super("No layout has been stored yet at " + where + ".");
  }
}
