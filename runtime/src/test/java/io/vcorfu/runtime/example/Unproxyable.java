package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;

/** Classes the runtime must refuse to open. */
public final class Unproxyable {
  private Unproxyable() {}

  public static final class FinalClass {
    int x;

    @Mutator
    public void set(int v) {
      x = v;
    }
  }

  public static class NoDefaultConstructor {
    int x;

    public NoDefaultConstructor(int x) {
      this.x = x;
    }

    @Accessor
    public int get() {
      return x;
    }
  }

  public static class FinalAnnotatedMethod {
    int x;

    @Mutator
    public final void set(int v) {
      x = v;
    }
  }

  public static class MutatorReturningValue {
    int x;

    @Mutator
    public int set(int v) {
      x = v;
      return x;
    }
  }

  public static class PrivateConstructor {
    private PrivateConstructor() {}

    @Accessor
    public int get() {
      return 0;
    }
  }
}
