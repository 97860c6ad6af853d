package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.collections.internal.ListVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SMRList} as a {@link io.vcorfu.runtime.VersionCapturing} state, on plain (unopened)
 * instances.
 */
class SMRListVersionedTest {

  @Test
  void capturedVersionsNeverChangeAndRestoreExactly() {
    SMRList<String> state = new SMRList<>();
    state.insertLast("a");
    state.insertLast("b");
    ListVersion<String> v1 = state.captureVersion();
    state.insertFirst("z");
    state.replaceAt(1, "A");
    state.pollLast();
    ListVersion<String> v2 = state.captureVersion();
    state.clear();

    assertThat(v1.elements()).containsExactly("a", "b");
    assertThat(v2.elements()).containsExactly("z", "A");
    assertThat(v2.changes()).isEqualTo(v1.changes() + 3);

    SMRList<String> restored = new SMRList<>();
    restored.restoreVersion(v1);
    assertThat(restored.captureVersion()).isEqualTo(v1);
    restored.insertLast("c");
    assertThat(restored).containsExactly("a", "b", "c");
    assertThat(v1.elements())
        .as("updates after a restore leave the version alone")
        .containsExactly("a", "b");
  }

  @Test
  void captureSharesTheStateInsteadOfCopyingIt() {
    SMRList<Integer> state = new SMRList<>();
    state.insertLastAll(List.of(1, 2, 3));
    assertThat(state.captureVersion().elements()).isSameAs(state.captureVersion().elements());
  }

  @Test
  void aVersionMadeFromAPlainListHoldsAPersistentSequence() {
    ListVersion<Integer> decoded = new ListVersion<>(5, new java.util.ArrayList<>(List.of(1, 2)));
    assertThat(decoded.elements())
        .isInstanceOf(io.vcorfu.collections.internal.PersistentSequence.class);
    SMRList<Integer> state = new SMRList<>();
    state.restoreVersion(decoded);
    state.insertLast(3);
    assertThat(state.captureVersion().changes()).isEqualTo(6);
    assertThat(state).containsExactly(1, 2, 3);
  }
}
