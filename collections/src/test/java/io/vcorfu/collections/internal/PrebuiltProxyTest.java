package io.vcorfu.collections.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.collections.SMRList;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.collections.SMRRangeMap;
import io.vcorfu.runtime.proxy.ProxyFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The collections' proxy classes are written at build time (ProxyClassWriter, run by this module's
 * build) beside their classes, and the runtime uses them instead of generating its own: every other
 * test of this module then runs through them.
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
  void everyObjectClassHasItsProxyClassWrittenBesideItAndTheRuntimeUsesThatClass()
      throws Exception {
    for (Class<?> type : OBJECT_CLASSES) {
      String name = type.getName() + "$VCorfuProxy";
      assertThat(type.getResource(type.getSimpleName() + "$VCorfuProxy.class"))
          .as(name)
          .isNotNull();
      // Loaded from the class path first: a runtime that generated the proxy instead would then
      // fail to define a second class of that name, or hand out another class.
      Class<?> written = Class.forName(name, false, type.getClassLoader());
      assertThat(ProxyFactory.forClass(type).constructor().getDeclaringClass()).isSameAs(written);
      assertThat(written.getSuperclass()).isEqualTo(type);
    }
  }
}
