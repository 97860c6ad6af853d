package io.vcorfu.client;

/**
 * The answer to a {@link ViewCall}: the method's result encoded by the object's serializer, and the
 * global address the state it ran on reflects. When the method itself threw, {@code failureType}
 * and {@code failureMessage} name the exception (non-empty type) and the result is empty.
 */
public record ViewCallResult(
    byte[] result, long version, String failureType, String failureMessage) {

  /** Whether the method threw on the host. */
  public boolean failed() {
    return !failureType.isEmpty();
  }
}
