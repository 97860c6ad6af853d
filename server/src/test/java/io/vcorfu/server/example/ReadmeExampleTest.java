package io.vcorfu.server.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.User;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The README's runtime example, over TCP against a real node, and a writer in another process. */
class ReadmeExampleTest {

  @Test
  void readmeExampleWorksAsWritten() {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (VCorfuRuntime rt = VCorfuRuntime.connect(node.endpoint().toString())) {
        User alice = rt.objects().open("user-alice", User.class);
        alice.register("alice", "s3cret");
        assertThat(alice.login("s3cret", Instant.ofEpochSecond(1))).isTrue();
        assertThat(alice.login("wrong", Instant.ofEpochSecond(2))).isFalse();

        rt.TXBegin();
        alice.logout(Instant.ofEpochSecond(3));
        assertThat(alice.getLastLogout()).as("read-own-writes").isEqualTo(Instant.ofEpochSecond(3));
        long commit = rt.TXEnd();
        assertThat(commit).isPositive();

        // Global address 0 holds the name's registration in the name directory, 1 the register.
        User then = rt.objects().builder("user-alice", User.class).asOf(1).open();
        assertThat(then.getName()).isEqualTo("alice");
        assertThat(then.getLastLogout()).isNull();

        rt.transaction(() -> alice.logout(Instant.ofEpochSecond(4)));
        assertThat(alice.getLastLogout()).isEqualTo(Instant.ofEpochSecond(4));
      }
    }
  }

  /**
   * The read-lease snippet of docs/runtime.md, over TCP: the leased reader sees each write once it
   * returned.
   */
  @Test
  void aReaderWithALeaseSeesEveryWriteOfAnotherClientOnceItReturned() {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      StreamLogOptions withLease = StreamLogOptions.defaults().withReadLease(Duration.ofSeconds(1));
      try (VCorfuRuntime reader =
              VCorfuRuntime.connect(
                  node.endpoint().toString(), RuntimeOptions.defaults(), withLease);
          VCorfuRuntime writer = VCorfuRuntime.connect(node.endpoint().toString())) {
        User w = writer.objects().open("user-bob", User.class);
        w.register("bob", "pw");
        User r = reader.objects().open("user-bob", User.class);
        for (int i = 1; i <= 50; i++) {
          w.logout(Instant.ofEpochSecond(i));
          assertThat(r.getLastLogout()).as("after write %d", i).isEqualTo(Instant.ofEpochSecond(i));
        }
      }
    }
  }

  @Test
  void conflictingTransactionAbortsWithItsCause() {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (VCorfuRuntime a = VCorfuRuntime.connect(node.endpoint().toString());
          VCorfuRuntime b = VCorfuRuntime.connect(node.endpoint().toString())) {
        User ua = a.objects().open("user-bob", User.class);
        User ub = b.objects().open("user-bob", User.class);
        ua.register("bob", "pw");
        a.TXBegin();
        ua.getName();
        ua.logout(Instant.ofEpochSecond(1));
        ub.logout(Instant.ofEpochSecond(2)); // another client writes after a's snapshot
        assertThatThrownBy(a::TXEnd)
            .isInstanceOfSatisfying(
                TransactionAbortedException.class,
                e -> assertThat(e.conflictAddress()).isGreaterThan(e.snapshot()));
      }
    }
  }

  @Test
  void aWriteFromAnotherProcessIsVisibleOnceItReturned() throws Exception {
    try (NettyTransport transport = new NettyTransport();
        Node node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport)) {
      node.ready().join();
      try (VCorfuRuntime rt = VCorfuRuntime.connect(node.endpoint().toString())) {
        User carol = rt.objects().open("user-carol", User.class);
        assertThat(carol.getName()).isNull(); // the local view exists before the other write
        Process writer =
            new ProcessBuilder(
                    List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        RegisterUser.class.getName(),
                        node.endpoint().toString(),
                        "user-carol",
                        "carol",
                        "pw"))
                .redirectErrorStream(true)
                .start();
        try {
          assertThat(writer.waitFor(60, TimeUnit.SECONDS)).isTrue();
          String out = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
          assertThat(writer.exitValue()).as(out).isZero();
          assertThat(out).contains("done");
        } finally {
          writer.destroyForcibly();
        }
        // The mutator returned in the other process before this accessor started: it must see it.
        assertThat(carol.getName()).isEqualTo("carol");
      }
    }
  }
}
