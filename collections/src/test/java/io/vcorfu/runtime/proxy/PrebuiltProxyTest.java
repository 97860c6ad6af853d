package io.vcorfu.runtime.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.collections.SMRList;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.collections.SMRRangeMap;
import io.vcorfu.collections.internal.BTreeMeta;
import io.vcorfu.collections.internal.BTreeNode;
import io.vcorfu.collections.internal.CSMRMapLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The collections' proxy classes are written at build time (ProxyClassWriter, run by this module's
 * build) and the runtime uses them instead of generating its own: every other test of this module
 * then runs through them.
 */
class PrebuiltProxyTest {
  private static final List<Class<?>> OBJECT_CLASSES =
      List.of(
          SMRMap.class,
          SMRList.class,
          SMRRangeMap.class,
          CSMRMapLayout.class,
          BTreeNode.class,
          BTreeMeta.class);

  @Test
  void everyObjectClassOfTheCollectionsHasItsProxyWrittenBesideIt() throws Exception {
    for (Class<?> type : OBJECT_CLASSES) {
      String file = type.getSimpleName() + "$VCorfuProxy.class";
      assertThat(type.getResource(file)).as(file).isNotNull();
      Class<?> proxy = ProxyFactory.prebuilt(ClassModel.of(type));
      assertThat(proxy).as(type.getName()).isNotNull();
      assertThat(proxy.getSuperclass()).isEqualTo(type);
      assertThat(ProxyFactory.forClass(type).constructor().getDeclaringClass()).isSameAs(proxy);
    }
  }

  @Test
  void aClassWithoutOneHasNoPrebuiltProxy() throws Exception {
    assertThat(ProxyFactory.prebuilt(ClassModel.of(Counter.class))).isNull();
    assertThat(ProxyFactory.forClass(Counter.class).constructor().getDeclaringClass().getName())
        .isEqualTo(Counter.class.getName() + "$VCorfuProxy");
  }

  /** An object class of this test only: its proxy is generated when first used. */
  public static class Counter {
    private long n;

    @io.vcorfu.runtime.annotations.Mutator
    public void inc() {
      n++;
    }

    @io.vcorfu.runtime.annotations.Accessor
    public long get() {
      return n;
    }
  }
}
