package io.vcorfu.runtime.serialization;

import java.lang.reflect.Type;

/**
 * Turns method arguments and results into bytes for the log and back. One serializer serves one
 * object (chosen per object when it is opened; the runtime's default otherwise).
 *
 * <p>Implementations must be thread-safe, must reject any value they cannot encode with {@link
 * UnsupportedTypeException} (never fall back to Java native serialization) and must be
 * deterministic: equal values encode to equal bytes in every JVM, because encoded values are also
 * used as conflict keys.
 */
public interface Serializer {

  /** Encodes {@code value} (which may be null). */
  byte[] serialize(Object value);

  /** Decodes bytes produced by {@link #serialize}; rejects anything not on the allow-list. */
  Object deserialize(byte[] bytes);

  /**
   * Called by the runtime with each parameter and return type of an opened object's annotated
   * methods, so a serializer that needs an explicit allow-list of user types (records, enums) can
   * admit exactly the types the object's code declares. The default does nothing.
   */
  default void permit(Type declaredType) {}
}
