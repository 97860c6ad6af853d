package io.vcorfu.runtime;

/**
 * An object could not be opened: its class cannot be proxied (final class, no non-private no-arg
 * constructor, an annotated final, static or private method, a {@code @Mutator} that returns a
 * value), or the name is already open with another type. The message names the problem.
 */
public final class ObjectOpenException extends IllegalArgumentException {
  public ObjectOpenException(String message) {
    super(message);
  }

  public ObjectOpenException(String message, Throwable cause) {
    super(message, cause);
  }
}
