package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.vcorfu.runtime.RemoteCallException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.testing.TestStreamLogs;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An SMRList read and written through a remote view (runs where the backend has real nodes). */
class SMRListRemoteViewTest {
  private final Harness harness = new Harness();
  private final String name = "remote-list-" + UUID.randomUUID();

  @BeforeEach
  void needsRealNodes() {
    assumeThat(System.getProperty(TestStreamLogs.BACKEND_PROPERTY))
        .as("remote views need real nodes (the server module's run)")
        .isNotNull();
  }

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void aRemoteViewServesTheSameListAsALocalOne() {
    SMRList<String> local = Harness.list(harness.runtime(), name);
    local.addAll(List.of("a", "b", "c"));
    VCorfuRuntime rt = harness.runtime();
    @SuppressWarnings("unchecked")
    SMRList<String> remote = rt.objects().builder(name, SMRList.class).remote().open();
    assertThat(remote.size()).isEqualTo(3);
    assertThat(remote.get(1)).isEqualTo("b");
    assertThat(remote).containsExactly("a", "b", "c");
    assertThat(remote.pollFirst()).isEqualTo("a");
    remote.push("z");
    Iterator<String> it = remote.iterator();
    assertThat(it.next()).isEqualTo("z");
    it.remove();
    assertThat(local).containsExactly("b", "c");
    assertThat(remote).isEqualTo(local);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> remote.remove(5))
        .isInstanceOfSatisfying(
            RemoteCallException.class,
            e -> assertThat(e.getMessage()).contains("IndexOutOfBoundsException"));
  }
}
