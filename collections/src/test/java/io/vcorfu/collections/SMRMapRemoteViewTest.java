package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.NotServingException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.TestStreamLogs;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A remote view of an SMRMap: the map lives on the host of its stream. On the in-memory log, which
 * hosts nothing, remote calls fail with NotServingException.
 */
class SMRMapRemoteViewTest {
  @RegisterExtension final Harness harness = new Harness();
  private final VCorfuRuntime rt = harness.defaultRuntime();

  @SuppressWarnings("unchecked")
  private SMRMap<String, Integer> remote(String name) {
    return rt.objects().builder(name, SMRMap.class).remote().open();
  }

  private static boolean realNodes() {
    String backend = System.getProperty(TestStreamLogs.BACKEND_PROPERTY);
    return backend != null && !backend.isEmpty();
  }

  @Test
  void aRemoteViewBehavesLikeTheLocalOne() {
    SMRMap<String, Integer> local = SMRMap.open(rt, "remote-map");
    SMRMap<String, Integer> remote = remote("remote-map");
    if (!realNodes()) {
      assertThatThrownBy(remote::size).isInstanceOf(NotServingException.class);
      return;
    }
    Map<String, Integer> model = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      local.put("k" + i, i);
      model.put("k" + i, i);
    }
    assertThat(remote.size()).isEqualTo(20);
    assertThat(remote.get("k3")).isEqualTo(3);
    assertThat(remote.put("k3", 30)).as("the value its update found").isEqualTo(3);
    model.put("k3", 30);
    remote.fastPut("new", 1);
    model.put("new", 1);
    assertThat(remote.remove("k4")).isEqualTo(4);
    model.remove("k4");
    assertThat(remote.putIfAbsent("k5", 99)).isEqualTo(5);
    assertThat(remote).isEqualTo(model);
    assertThat(new HashSet<>(remote.keySet())).isEqualTo(model.keySet());
    assertThat(local).isEqualTo(model);
  }
}
