package io.vcorfu.runtime.serialization;

/**
 * Encodes one user type for {@link DefaultSerializer}. Implementations must be deterministic and
 * thread-safe; nested values may be written with {@link BinaryWriter#writeValue}.
 */
public interface TypeCodec<T> {
  void write(T value, BinaryWriter out);

  T read(BinaryReader in);
}
