package io.vcorfu.server.views;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/** An object whose accessor throws until the first reading. */
public class Thermometer {
  Double celsius;

  @Mutator
  public void record(double value) {
    celsius = value;
  }

  @Accessor
  public double read() {
    if (celsius == null) {
      throw new IllegalStateException("no reading was recorded yet");
    }
    return celsius;
  }
}
