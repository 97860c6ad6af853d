package io.vcorfu.runtime.serialization;

/**
 * A value's type is not on the serializer's allow-list. Thrown at the call site, before anything is
 * appended to the log, and by the decoder when a payload names a type it does not allow.
 */
public final class UnsupportedTypeException extends SerializationException {
  private final String typeName;

  public UnsupportedTypeException(String typeName, String message) {
    super(message);
    this.typeName = typeName;
  }

  /** The rejected type's name. */
  public String typeName() {
    return typeName;
  }
}
