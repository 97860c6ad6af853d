package io.vcorfu.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.protocol.Endpoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeIdentityTest {
  private static final Endpoint A = new Endpoint("10.0.0.1", 9000);
  private static final Endpoint B = new Endpoint("10.0.0.2", 9000);

  @TempDir Path dir;

  @Test
  void anEmptyDirectoryGetsANewIncarnationThatLaterStartsRead() {
    NodeIdentity first = NodeIdentity.open(dir, "c", A);
    assertThat(first.fresh()).isTrue();
    assertThat(Files.exists(dir.resolve(NodeIdentity.FILE))).isTrue();

    NodeIdentity again = NodeIdentity.open(dir, "c", A);
    assertThat(again.incarnation()).isEqualTo(first.incarnation());
    assertThat(again.fresh()).isFalse();
  }

  @Test
  void aWipedDirectoryIsANewIncarnation() throws Exception {
    String before = NodeIdentity.open(dir, "c", A).incarnation();
    Files.delete(dir.resolve(NodeIdentity.FILE));
    NodeIdentity after = NodeIdentity.open(dir, "c", A);
    assertThat(after.incarnation()).isNotEqualTo(before);
    assertThat(after.fresh()).isTrue();
  }

  @Test
  void aDirectoryUsedBeforeIdentitiesKeepsItsDataAsItsFirstIncarnation() throws Exception {
    Files.writeString(dir.resolve("sealed-epoch"), "3");
    assertThat(NodeIdentity.open(dir, "c", A).fresh()).isFalse();
  }

  @Test
  void anotherNodesOrClustersDirectoryIsRefusedUntouched() throws Exception {
    NodeIdentity.open(dir, "c", A);
    byte[] before = Files.readAllBytes(dir.resolve(NodeIdentity.FILE));
    assertThatThrownBy(() -> NodeIdentity.open(dir, "c", B))
        .isInstanceOf(ForeignDataDirectoryException.class)
        .hasMessageContaining("holds the data of node " + A)
        .hasMessageContaining("not of node " + B);
    assertThatThrownBy(() -> NodeIdentity.open(dir, "other", A))
        .isInstanceOf(ForeignDataDirectoryException.class)
        .hasMessageContaining("cluster 'c'");
    assertThat(Files.readAllBytes(dir.resolve(NodeIdentity.FILE))).isEqualTo(before);
  }

  @Test
  void aCorruptIdentityIsAClearError() throws Exception {
    Files.writeString(dir.resolve(NodeIdentity.FILE), "garbage\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> NodeIdentity.open(dir, "c", A))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is corrupt")
        .hasMessageContaining("cannot tell whose data");
  }

  @Test
  void aNodeIsTrustedOnlyByTheIncarnationItClaimed() {
    Layout layout = LayoutChanges.initial("c", List.of(A, B), 2);
    NodeIdentity a = NodeIdentity.inMemory("c", A);
    assertThat(a.whyNotTrusted(layout)).contains("has not yet recorded");

    Layout claimed = a.claim(layout);
    assertThat(claimed.incarnations()).containsEntry(A, a.incarnation());
    assertThat(claimed.epoch()).isEqualTo(layout.epoch());
    assertThat(a.whyNotTrusted(claimed)).isNull();
    assertThat(a.claim(claimed)).as("nothing left to claim").isNull();

    NodeIdentity wiped = NodeIdentity.inMemory("c", A);
    assertThat(wiped.claim(claimed)).as("the place is another incarnation's").isNull();
    assertThat(wiped.whyNotTrusted(claimed))
        .contains("was wiped or replaced")
        .contains(a.incarnation());

    Layout without = LayoutChanges.withoutNode(claimed, A, 0);
    assertThat(without.incarnations()).doesNotContainKey(A);
    assertThat(a.claim(without)).as("a removed node claims nothing").isNull();
  }
}
