package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A layout store connected with the cluster's ZooKeeper identity creates the layout's znodes
 * readable and writable by that identity only: a client without it, or with another password, can
 * neither read nor change the layout, and is told what to give.
 */
class ZkAuthTest {
  private static final Duration SESSION = Duration.ofSeconds(10);
  private static final List<Endpoint> NODES =
      List.of(new Endpoint("127.0.0.1", 9001), new Endpoint("127.0.0.1", 9002));

  private static TestingServer zookeeper;

  @TempDir Path tmp;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zookeeper = TestEnsembles.server();
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    zookeeper.close();
  }

  @Test
  void onlyTheClustersIdentityReadsOrChangesItsLayout() throws Exception {
    ZkAuth cluster = new ZkAuth("vcorfu", "s3cret");
    Layout first = LayoutChanges.initial("guarded", NODES, 2).withEpoch(1);
    try (ZkLayoutStore owner =
        ZkLayoutStore.connect(zookeeper.getConnectString(), "guarded", SESSION, cluster, null)) {
      owner.compareAndSet(LayoutStore.NO_VERSION, first).join();
      assertThat(owner.get().join().value()).isEqualTo(first);

      for (String path : List.of("/vcorfu", "/vcorfu/guarded", owner.path())) {
        List<ACL> acl = owner.client().usingNamespace(null).getACL().forPath(path);
        assertThat(acl).as(path).hasSize(1);
        assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
        assertThat(acl.get(0).getId().getId()).startsWith("vcorfu:");
        assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
      }
    }
    for (ZkAuth other : new ZkAuth[] {null, new ZkAuth("vcorfu", "guess")}) {
      try (ZkLayoutStore stranger =
          ZkLayoutStore.connect(zookeeper.getConnectString(), "guarded", SESSION, other, null)) {
        assertThat(ZkLayoutStoreTest.failureOf(stranger.get()))
            .as("read as %s", other)
            .isInstanceOf(LayoutException.class)
            .hasMessageContaining("--zookeeper-auth")
            .hasMessageNotContaining("s3cret");
        assertThat(ZkLayoutStoreTest.failureOf(stranger.compareAndSet(0, first.withEpoch(2))))
            .as("write as %s", other)
            .isInstanceOf(LayoutException.class)
            .hasMessageContaining("--zookeeper-auth");
      }
    }
    try (ZkLayoutStore owner =
        ZkLayoutStore.connect(zookeeper.getConnectString(), "guarded", SESSION, cluster, null)) {
      assertThat(owner.get().join().value()).as("unchanged").isEqualTo(first);
    }
  }

  @Test
  void theIdentityFileMustHoldUserColonPassword() throws Exception {
    Path good = Files.writeString(tmp.resolve("zk-auth"), "vcorfu:pa:ss\n");
    ZkAuth read = ZkAuth.fromFile(good);
    assertThat(read.user()).isEqualTo("vcorfu");
    assertThat(read.password()).isEqualTo("pa:ss");
    assertThat(read.toString()).doesNotContain("pa:ss");
    for (String bad : List.of("", "nopassword", ":pw", "user:")) {
      Path f = Files.writeString(tmp.resolve("bad"), bad);
      assertThatThrownBy(() -> ZkAuth.fromFile(f))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("user:password");
    }
    assertThatThrownBy(() -> ZkAuth.fromFile(tmp.resolve("missing")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not exist");
  }
}
