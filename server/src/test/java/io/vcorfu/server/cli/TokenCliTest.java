package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.server.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bearer tokens from the command line, against a real {@code vcorfu server --tokens FILE --acl
 * FILE} process: {@code vcorfu token create} prints a token and stores only its hash; a client with
 * {@code --token-file} and no certificate does what the grants to {@code token:NAME} allow and is
 * refused elsewhere; a wrong token, or a revoked one, is refused with one line saying what to do
 * (exit 1, nothing written); bad input is a usage error (exit 2) that writes nothing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TokenCliTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("token CA");

  private static CliRun run(ServerProcess node, Path caFile, Path token, String... args) {
    List<String> all = new ArrayList<>(List.of(args[0], args[1]));
    all.addAll(List.of("--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(2, args.length));
    all.addAll(List.of("--tls-ca", caFile.toString(), "--token-file", token.toString()));
    return CliRun.of(all);
  }

  @Test
  void aClientWithATokenDoesWhatTheGrantsToItsNameAllow() throws Exception {
    TlsOptions nodeTls = ca.identityIn(tmp, "node");
    Path tokens = tmp.resolve("tokens");
    CliRun created = CliRun.of("token", "create", "--tokens", tokens.toString(), "--name", "alice");
    assertThat(created.code()).as(created.err()).isZero();
    String token = created.out().strip();
    assertThat(token).hasSizeGreaterThanOrEqualTo(43);
    assertThat(Files.readString(tokens)).doesNotContain(token).contains("alice ");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokens)))
        .isEqualTo("rw-------");
    assertThat(CliRun.of("token", "list", "--tokens", tokens.toString()).out().strip())
        .isEqualTo("token:alice");
    Path mine = Files.writeString(tmp.resolve("alice.token"), token + "\n");

    Path acl = tmp.resolve("acl.json");
    CliRun grant = grant(acl, "token:alice", "app/", "read,write");
    assertThat(grant.code()).as(grant.err()).isZero();
    List<String> args =
        new ArrayList<>(
            List.of("--memory", "--acl", acl.toString(), "--tokens", tokens.toString()));
    args.addAll(
        List.of(
            "--tls-cert", nodeTls.cert().toString(),
            "--tls-key", nodeTls.key().toString(),
            "--tls-ca", nodeTls.ca().toString()));
    try (ServerProcess node = ServerProcess.start(ServerProcess.freePort(), args).awaitReady()) {
      assertThat(node.output())
          .anySatisfy(l -> assertThat(l).contains("or bearer tokens from " + tokens));
      CliRun append =
          run(node, nodeTls.ca(), mine, "log", "append", "--stream", "app/events", "hi");
      assertThat(append.code()).as(append.err()).isZero();
      assertThat(run(node, nodeTls.ca(), mine, "log", "read", "--stream", "app/events").out())
          .endsWith("hi");

      CliRun denied = run(node, nodeTls.ca(), mine, "log", "append", "--stream", "ops/x", "no");
      assertThat(denied.code()).isEqualTo(1);
      assertThat(denied.err().strip())
          .startsWith("vcorfu: permission denied: token:alice holds no 'write' grant");

      Path wrong = Files.writeString(tmp.resolve("wrong.token"), "not-a-token\n");
      CliRun refused = run(node, nodeTls.ca(), wrong, "log", "append", "--stream", "app/x", "no");
      assertThat(refused.code()).isEqualTo(1);
      assertThat(refused.err().lines()).hasSize(1);
      assertThat(refused.err())
          .contains("does not accept this bearer token")
          .contains("vcorfu token create");

      CliRun revoked =
          CliRun.of("token", "revoke", "--tokens", tokens.toString(), "--name", "alice");
      assertThat(revoked.code()).as(revoked.err()).isZero();
      // Probed with reads: an append sent before the node re-read the file would be served.
      Awaitility.await("the revoked token is refused")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  run(node, nodeTls.ca(), mine, "log", "read", "--stream", "app/events")
                      .err()
                      .contains("does not accept this bearer token"));
      CliRun late =
          run(node, nodeTls.ca(), mine, "log", "append", "--stream", "app/events", "late");
      assertThat(late.code()).isEqualTo(1);
      assertThat(late.err()).contains("does not accept this bearer token");
      // Nothing any refused call sent was written: only the first append is in the stream.
      TlsOptions admin = ca.identityIn(tmp, "admin");
      CliRun grantAdmin = grant(acl, "O=vcorfu test,CN=admin", "", "read");
      assertThat(grantAdmin.code()).as(grantAdmin.err()).isZero();
      Awaitility.await("the admin reads every stream")
          .atMost(Duration.ofSeconds(10))
          .until(() -> readAs(node, admin, "app/events").code() == 0);
      assertThat(readAs(node, admin, "app/events").out().lines()).hasSize(1);
      assertThat(readAs(node, admin, "app/x").out()).isEmpty();
      assertThat(readAs(node, admin, "ops/x").out()).isEmpty();
    }
  }

  private static CliRun grant(Path acl, String principal, String prefix, String permissions) {
    return CliRun.of(
        "acl",
        "grant",
        "--file",
        acl.toString(),
        "--principal",
        principal,
        "--prefix",
        prefix,
        "--permissions",
        permissions);
  }

  private static CliRun readAs(ServerProcess node, TlsOptions t, String stream) {
    return CliRun.of(
        "log",
        "read",
        "--endpoint",
        node.endpoint().toString(),
        "--stream",
        stream,
        "--tls-ca",
        t.ca().toString(),
        "--tls-cert",
        t.cert().toString(),
        "--tls-key",
        t.key().toString());
  }

  @Test
  void badInputIsAUsageErrorThatWritesNothing() throws Exception {
    Path tokens = tmp.resolve("tokens");
    CliRun noName = CliRun.of("token", "create", "--tokens", tokens.toString());
    assertThat(noName.code()).isEqualTo(2);
    CliRun badName = CliRun.of("token", "create", "--tokens", tokens.toString(), "--name", "a b/c");
    assertThat(badName.code()).isEqualTo(2);
    assertThat(badName.err()).contains("letters, digits");
    assertThat(tokens).doesNotExist();

    assertThat(CliRun.of("token", "create", "--tokens", tokens.toString(), "--name", "bo").code())
        .isZero();
    String before = Files.readString(tokens);
    CliRun twice = CliRun.of("token", "create", "--tokens", tokens.toString(), "--name", "bo");
    assertThat(twice.code()).isEqualTo(2);
    assertThat(twice.err()).contains("already has a token");
    assertThat(Files.readString(tokens)).isEqualTo(before);
    CliRun nobody = CliRun.of("token", "revoke", "--tokens", tokens.toString(), "--name", "al");
    assertThat(nobody.code()).isEqualTo(3);
    assertThat(Files.readString(tokens)).isEqualTo(before);

    Path t = Files.writeString(tmp.resolve("t"), "x\n");
    CliRun plaintext =
        CliRun.of(
            "log",
            "append",
            "--endpoint",
            "127.0.0.1:1",
            "--stream",
            "s",
            "--token-file",
            t.toString(),
            "v");
    assertThat(plaintext.code()).isEqualTo(2);
    assertThat(plaintext.err()).contains("only over TLS");

    CliRun server = CliRun.of("server", "--memory", "--tokens", tokens.toString());
    assertThat(server.code()).isEqualTo(2);
    assertThat(server.err().strip())
        .isEqualTo(
            "vcorfu server: --tokens needs TLS (a token is never read in plaintext): give"
                + " --tls-cert, --tls-key and --tls-ca");

    TlsOptions nodeTls = ca.identityIn(tmp, "node");
    Path edited = Files.writeString(tmp.resolve("edited"), "# mine\nalice my-secret\n");
    CliRun unusable =
        CliRun.of(
            "server",
            "--memory",
            "--tokens",
            edited.toString(),
            "--tls-cert",
            nodeTls.cert().toString(),
            "--tls-key",
            nodeTls.key().toString(),
            "--tls-ca",
            nodeTls.ca().toString());
    assertThat(unusable.code()).isEqualTo(2);
    assertThat(unusable.err().strip())
        .startsWith("vcorfu server: the token file " + edited + ": line 2 is not NAME SHA256");
  }
}
