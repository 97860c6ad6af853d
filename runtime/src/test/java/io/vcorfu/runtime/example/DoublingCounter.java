package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;

/** Inherits its mutators from {@link Counter}; adds an accessor and shadows one as unannotated. */
public class DoublingCounter extends Counter {
  @Accessor
  public long doubled() {
    return value * 2;
  }

  /** Overrides an accessor without the annotation: an ordinary method on the local state. */
  @Override
  public long upcalls() {
    return -upcalls;
  }
}
