package io.vcorfu.runtime.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Account;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.example.Unproxyable;
import io.vcorfu.runtime.testing.TestStreamLogs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProxyRulesTest {
  private final TestStreamLogs cluster = TestStreamLogs.create();
  private final VCorfuRuntime rt = cluster.newRuntime();

  @AfterEach
  void close() {
    rt.close();
  }

  @Test
  void finalClassFailsAtOpenNamingTheProblem() {
    assertThatThrownBy(() -> rt.objects().open("x", Unproxyable.FinalClass.class))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining("FinalClass")
        .hasMessageContaining("is final");
  }

  @Test
  void classWithoutNoArgConstructorFailsAtOpenNamingTheProblem() {
    assertThatThrownBy(() -> rt.objects().open("x", Unproxyable.NoDefaultConstructor.class))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining("NoDefaultConstructor")
        .hasMessageContaining("no no-argument constructor");
    assertThatThrownBy(() -> rt.objects().open("x", Unproxyable.PrivateConstructor.class))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining("constructor")
        .hasMessageContaining("private");
  }

  @Test
  void finalAnnotatedMethodFailsAtOpenNamingTheMethod() {
    assertThatThrownBy(() -> rt.objects().open("x", Unproxyable.FinalAnnotatedMethod.class))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining("set(int)")
        .hasMessageContaining("final");
  }

  @Test
  void mutatorReturningAValueFailsAtOpen() {
    assertThatThrownBy(() -> rt.objects().open("x", Unproxyable.MutatorReturningValue.class))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining("@MutatorAccessor");
  }

  @Test
  void sameNameAsAnotherTypeFailsAtOpen() {
    rt.objects().open("taken", Counter.class);
    assertThatThrownBy(() -> rt.objects().open("taken", Account.class))
        .isInstanceOf(ObjectOpenException.class)
        .hasMessageContaining(Counter.class.getName());
  }

  @Test
  void proxyClassIsGeneratedOncePerClass() {
    Counter a = rt.objects().open("c1", Counter.class);
    Counter b = rt.objects().open("c2", Counter.class);
    try (VCorfuRuntime other = cluster.newRuntime()) {
      Counter c = other.objects().open("c1", Counter.class);
      assertThat(a.getClass()).isSameAs(b.getClass()).isSameAs(c.getClass());
      assertThat(a.getClass()).isNotSameAs(Counter.class);
      assertThat(a).isInstanceOf(Counter.class);
    }
  }

  /** Package-private class with package-private annotated methods and constructor. */
  static class Hidden {
    private int x;

    Hidden() {}

    @io.vcorfu.runtime.annotations.Mutator
    void set(int v) {
      x = v;
    }

    @io.vcorfu.runtime.annotations.Accessor
    int get() {
      return x;
    }
  }

  @Test
  void packagePrivateClassesAndMethodsAreProxied() {
    Hidden h = rt.objects().open("hidden", Hidden.class);
    h.set(42);
    try (VCorfuRuntime other = cluster.newRuntime()) {
      assertThat(other.objects().open("hidden", Hidden.class).get()).isEqualTo(42);
    }
  }
}
