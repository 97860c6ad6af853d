package io.vcorfu.layout;

import java.util.Objects;

/**
 * A value with the store version it was read at or written as. Versions start at 0 for the first
 * stored value and grow by one per successful update.
 */
public record Versioned<T>(T value, long version) {
  public Versioned {
    Objects.requireNonNull(value, "value");
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, got " + version);
    }
  }
}
