package io.vcorfu.runtime;

/** A mutator was called on a snapshot view, which shows a fixed past version and cannot change. */
public final class ReadOnlyViewException extends UnsupportedOperationException {
  public ReadOnlyViewException(String message) {
    super(message);
  }
}
