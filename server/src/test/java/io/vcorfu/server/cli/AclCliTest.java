package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.server.ServerProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authorization from the command line, against a real {@code vcorfu server --acl FILE} process: a
 * client granted {@code read,write} on {@code app/} appends, reads and uses maps under it, and is
 * refused elsewhere with one line naming the permission and the stream (exit 1, nothing written); a
 * grant given while the node runs takes effect without a restart.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AclCliTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("acl CA");

  private static List<String> tls(TlsOptions t) {
    return List.of(
        "--tls-ca",
        t.ca().toString(),
        "--tls-cert",
        t.cert().toString(),
        "--tls-key",
        t.key().toString());
  }

  private static CliRun run(ServerProcess node, TlsOptions t, String... args) {
    List<String> all = new ArrayList<>(List.of(args[0], args[1]));
    all.addAll(List.of("--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(2, args.length));
    all.addAll(tls(t));
    return CliRun.of(all);
  }

  @Test
  void aClientDoesWhatItsGrantsAllowFromTheCommandLine() throws Exception {
    TlsOptions nodeTls = ca.identityIn(tmp, "node");
    TlsOptions app = ca.identityIn(tmp, "app");
    String principal = "O=vcorfu test,CN=app";
    Path acl = tmp.resolve("acl.json");
    CliRun grant =
        CliRun.of(
            "acl",
            "grant",
            "--file",
            acl.toString(),
            "--principal",
            principal,
            "--prefix",
            "app/",
            "--permissions",
            "read,write");
    assertThat(grant.code()).as(grant.err()).isZero();
    List<String> args = new ArrayList<>(List.of("--memory", "--acl", acl.toString()));
    args.addAll(
        List.of(
            "--tls-cert",
            nodeTls.cert().toString(),
            "--tls-key",
            nodeTls.key().toString(),
            "--tls-ca",
            nodeTls.ca().toString()));
    try (ServerProcess node = ServerProcess.start(ServerProcess.freePort(), args).awaitReady()) {
      assertThat(node.output())
          .anySatisfy(l -> assertThat(l).contains("requests authorized by the grants in " + acl));
      CliRun append = run(node, app, "log", "append", "--stream", "app/events", "hello");
      assertThat(append.code()).as(append.err()).isZero();
      assertThat(run(node, app, "log", "read", "--stream", "app/events").out()).endsWith("hello");
      CliRun put = run(node, app, "map", "put", "--map", "app/users", "alice", "admin");
      assertThat(put.code()).as(put.err()).isZero();
      assertThat(run(node, app, "map", "get", "--map", "app/users", "alice").out().strip())
          .isEqualTo("admin");

      CliRun denied = run(node, app, "log", "append", "--stream", "ops/config", "x");
      assertThat(denied.code()).isEqualTo(1);
      assertThat(denied.err().strip())
          .isEqualTo(
              "vcorfu: permission denied: "
                  + principal
                  + " holds no 'write' grant on stream 'ops/config'; an administrator can give"
                  + " one with vcorfu acl grant");

      CliRun more =
          CliRun.of(
              "acl",
              "grant",
              "--file",
              acl.toString(),
              "--principal",
              principal,
              "--prefix",
              "ops/",
              "--permissions",
              "write");
      assertThat(more.code()).isZero();
      org.awaitility.Awaitility.await("the new grant takes effect")
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> run(node, app, "log", "append", "--stream", "ops/config", "y").code() == 0);
      // Written now, and still not readable: write was granted, read was not.
      CliRun unreadable = run(node, app, "log", "read", "--stream", "ops/config");
      assertThat(unreadable.code()).isEqualTo(1);
      assertThat(unreadable.err())
          .startsWith("vcorfu: permission denied: " + principal + " holds no 'read' grant");
    }
  }
}
