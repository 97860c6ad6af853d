package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutStore;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.server.access.AccessList;
import io.vcorfu.server.access.AclFile;
import io.vcorfu.server.access.AclZnode;
import io.vcorfu.server.access.Permission;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code vcorfu acl grant|revoke|list} on a single node's grants file and on a cluster's grants in
 * ZooKeeper, and {@code vcorfu server}'s {@code --acl}/{@code --authorization}: what they print,
 * what they write, and one line, exit 2 and nothing written for every bad input.
 */
class AclCommandsTest {
  @TempDir Path tmp;

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine cl = VcorfuCli.newCommandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void grantsRevokesAndListsAFile() throws Exception {
    String f = tmp.resolve("acl.json").toString();
    Run g =
        run(
            "acl",
            "grant",
            "--file",
            f,
            "--principal",
            "CN=alice",
            "--prefix",
            "a/",
            "--permissions",
            "read,write");
    assertThat(g.code()).as(g.err()).isZero();
    assertThat(g.out().strip())
        .isEqualTo("granted read,write on streams starting with 'a/' to CN=alice");
    assertThat(
            run("acl", "grant", "--file", f, "--principal", "CN=ops", "--permissions", "admin")
                .code())
        .isZero();
    assertThat(
            run(
                    "acl",
                    "grant",
                    "--file",
                    f,
                    "--principal",
                    "CN=alice",
                    "--prefix",
                    "a/",
                    "--permissions",
                    "trim")
                .code())
        .isZero();
    AccessList now = AclFile.read(Path.of(f));
    assertThat(now.allows("CN=alice", Permission.TRIM, "a/x")).isTrue();
    assertThat(now.allows("CN=alice", Permission.READ, "b/x")).isFalse();
    assertThat(now.allows("CN=ops", Permission.ADMIN, null)).isTrue();

    Run list = run("acl", "list", "--file", f);
    assertThat(list.code()).isZero();
    assertThat(list.out().lines().toList())
        .containsExactly(
            "PRINCIPAL  PREFIX                PERMISSIONS",
            "CN=alice   a/                    read,write,trim",
            "CN=ops     (every stream)        admin");
    Run json = run("acl", "list", "--file", f, "--output", "json");
    assertThat(json.out().lines().toList())
        .containsExactly(
            "{\"principal\":\"CN=alice\",\"prefix\":\"a/\","
                + "\"permissions\":[\"read\",\"write\",\"trim\"]}",
            "{\"principal\":\"CN=ops\",\"prefix\":\"\",\"permissions\":[\"admin\"]}");

    Run revoke =
        run(
            "acl",
            "revoke",
            "--file",
            f,
            "--principal",
            "CN=alice",
            "--prefix",
            "a/",
            "--permissions",
            "write,trim");
    assertThat(revoke.code()).as(revoke.err()).isZero();
    assertThat(AclFile.read(Path.of(f)).allows("CN=alice", Permission.WRITE, "a/x")).isFalse();
    assertThat(AclFile.read(Path.of(f)).allows("CN=alice", Permission.READ, "a/x")).isTrue();
    Run none = run("acl", "revoke", "--file", f, "--principal", "CN=bob", "--permissions", "read");
    assertThat(none.code()).isEqualTo(3);
    assertThat(none.err().strip()).endsWith("nothing was changed");
  }

  @Test
  void deployIsGrantedOnAPrefixLikeView() throws Exception {
    String f = tmp.resolve("acl.json").toString();
    Run g =
        run(
            "acl",
            "grant",
            "--file",
            f,
            "--principal",
            "CN=dev",
            "--prefix",
            "a/",
            "--permissions",
            "view,deploy");
    assertThat(g.code()).as(g.err()).isZero();
    assertThat(g.out().strip())
        .isEqualTo("granted view,deploy on streams starting with 'a/' to CN=dev");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--principal CN=a --permissions fly | 'fly' is not a permission: use read, write, trim,"
            + " admin, view, deploy or node",
        "--principal CN=a --prefix a/ --permissions admin | 'admin' is granted on the whole"
            + " cluster: give it without --prefix (the empty prefix)",
        "--principal ' ' --permissions read | a grant needs a principal (a certificate subject,"
            + " or *)",
      })
  void badGrantsAreRefusedWithOneLineAndNothingWritten(String args, String message) {
    Path f = tmp.resolve("acl.json");
    List<String> argv = new java.util.ArrayList<>(List.of("acl", "grant", "--file", f.toString()));
    for (String a : args.split(" (?=--)")) {
      int sp = a.indexOf(' ');
      argv.add(a.substring(0, sp));
      argv.add(a.substring(sp + 1).replace("'", ""));
    }
    Run r = run(argv.toArray(String[]::new));
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("vcorfu acl grant: " + message);
    assertThat(Files.exists(f)).isFalse();
  }

  @Test
  void aPlaceIsOneFileOrOneCluster() {
    Run neither = run("acl", "list");
    assertThat(neither.code()).isEqualTo(2);
    assertThat(neither.err().strip()).startsWith("vcorfu acl list: give --file FILE");
    Run both =
        run(
            "acl",
            "list",
            "--file",
            tmp.resolve("x").toString(),
            "--zookeeper",
            "127.0.0.1:1",
            "--cluster",
            "c");
    assertThat(both.code()).isEqualTo(2);
    Run missing = run("acl", "list", "--file", tmp.resolve("none.json").toString());
    assertThat(missing.code()).isEqualTo(3);
    assertThat(missing.err()).contains("vcorfu acl grant --file");
  }

  @Test
  void grantsAClusterInZooKeeperByCompareAndSet() throws Exception {
    try (TestingServer zk = TestEnsembles.server()) {
      String z = zk.getConnectString();
      Run noCluster =
          run(
              "acl",
              "grant",
              "--zookeeper",
              z,
              "--cluster",
              "none",
              "--principal",
              "CN=a",
              "--permissions",
              "read");
      assertThat(noCluster.code()).isEqualTo(3);
      assertThat(noCluster.err()).contains("vcorfu cluster init");
      try (ZkLayoutStore store = ZkLayoutStore.connect(z, "c1", Duration.ofSeconds(10))) {
        store
            .compareAndSet(
                LayoutStore.NO_VERSION,
                LayoutChanges.initial("c1", List.of(new Endpoint("127.0.0.1", 1)), 1))
            .get(10, TimeUnit.SECONDS);
        for (String who : List.of("CN=a", "CN=b", "CN=c")) {
          Run r =
              run(
                  "acl",
                  "grant",
                  "--zookeeper",
                  z,
                  "--cluster",
                  "c1",
                  "--principal",
                  who,
                  "--prefix",
                  "x/",
                  "--permissions",
                  "read");
          assertThat(r.code()).as(r.err()).isZero();
        }
        AccessList in = AclZnode.read(store.client(), "c1");
        assertThat(in.grants()).hasSize(3);
        Run list = run("acl", "list", "--zookeeper", z, "--cluster", "c1");
        assertThat(list.out().lines()).hasSize(4);
      }
    }
  }

  @Test
  void theServerRefusesAuthorizationWithoutTlsOrWithTheWrongSource() throws Exception {
    Path data = tmp.resolve("data");
    Path acl = tmp.resolve("acl.json");
    Run plaintext =
        run("server", "--data-dir", data.toString(), "--port", "65000", "--acl", acl.toString());
    assertThat(plaintext.code()).isEqualTo(2);
    assertThat(plaintext.err().strip())
        .isEqualTo(
            "vcorfu server: --acl needs TLS (a caller's principal is the subject of its"
                + " certificate): give --tls-cert, --tls-key and --tls-ca");
    var tls = TestCertificates.authority("ca").identityIn(tmp, "node");
    List<String> withTls =
        List.of(
            "--tls-cert",
            tls.cert().toString(),
            "--tls-key",
            tls.key().toString(),
            "--tls-ca",
            tls.ca().toString());
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "server",
                "--data-dir",
                data.toString(),
                "--port",
                "65000",
                "--acl",
                acl.toString()));
    args.addAll(withTls);
    Run noFile = run(args.toArray(String[]::new));
    assertThat(noFile.code()).isEqualTo(2);
    assertThat(noFile.err().strip())
        .startsWith("vcorfu server: the grants file " + acl + " does not exist");
    List<String> single =
        new java.util.ArrayList<>(
            List.of("server", "--data-dir", data.toString(), "--port", "65000", "--authorization"));
    single.addAll(withTls);
    Run wrong = run(single.toArray(String[]::new));
    assertThat(wrong.code()).isEqualTo(2);
    assertThat(wrong.err()).contains("--authorization is for a cluster node");
    assertThat(Files.exists(data)).as("nothing written").isFalse();
  }
}
