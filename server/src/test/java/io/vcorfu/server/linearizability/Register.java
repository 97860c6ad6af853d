package io.vcorfu.server.linearizability;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/** A register of one string, initially null: the object the history tests call get and set on. */
public class Register {
  String value;

  @Accessor
  public String get() {
    return value;
  }

  @Mutator
  public void set(String v) {
    value = v;
  }
}
