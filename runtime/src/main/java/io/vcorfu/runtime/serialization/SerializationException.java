package io.vcorfu.runtime.serialization;

/** A value could not be encoded, or bytes could not be decoded into a value. */
public class SerializationException extends RuntimeException {
  public SerializationException(String message) {
    super(message);
  }

  public SerializationException(String message, Throwable cause) {
    super(message, cause);
  }
}
