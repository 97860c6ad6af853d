package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.ChainHead;
import io.vcorfu.server.SegmentDamage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu log head} and {@code vcorfu log verify} against a durable node on loopback: a head
 * to pin, a clean check, a byte flipped in the node's segment file named by its address, a pin that
 * no longer matches, and bad input refused with one line before anything is sent.
 */
class LogVerifyCommandTest {
  @TempDir Path tmp;
  private LoopbackNode node;

  @BeforeEach
  void start() {
    node = LoopbackNode.start(tmp.resolve("data"));
    for (int i = 0; i < 10; i++) {
      CliRun a = node.log("append", "--stream", "ledger", "entry-" + i + "-of-the-ledger");
      assertThat(a.code()).as(a.err()).isZero();
    }
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void aHeadToPinChecksCleanUntilAByteOfTheSegmentFileIsFlipped() throws Exception {
    CliRun head = node.log("head", "--stream", "ledger");
    assertThat(head.code()).as(head.err()).isZero();
    ChainHead pin = ChainHead.parse(head.out().trim());
    assertThat(pin.position()).isEqualTo(9);
    assertThat(head.out().trim()).startsWith("ledger@9:");

    CliRun clean = node.log("verify", "--stream", "ledger", "--pin", head.out().trim());
    assertThat(clean.code()).as(clean.out() + clean.err()).isZero();
    assertThat(clean.out())
        .contains("stream ledger: 10 entries checked, 0 damaged, chain to 9")
        .contains("pin match")
        .contains("replicas agree on the head ledger@9:");

    CliRun json = node.log("verify", "--stream", "ledger", "--output", "json");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(json.out().lines().count()).as("one JSON object").isEqualTo(1);
    assertThat(json.out())
        .contains("\"checked\":10")
        .contains("\"heads\":\"replicas agree on the head ledger@9:");

    assertThat(
            SegmentDamage.flipEnd(tmp.resolve("data"), "entry-6-".getBytes(StandardCharsets.UTF_8)))
        .as("copies of the entry's value in the node's segment files")
        .isEqualTo(1);
    CliRun damaged = node.log("verify", "--stream", "ledger", "--pin", head.out().trim());
    assertThat(damaged.code()).as("damage found").isEqualTo(1);
    assertThat(damaged.out())
        .contains("1 damaged")
        .contains("damaged: stream ledger address 6: its bytes do not match the digest");

    CliRun all = node.log("verify", "--all");
    assertThat(all.code()).isEqualTo(1);
    assertThat(all.out()).contains("damaged: stream ledger address 6").contains("  log: ");

    // An earlier head of the stream pinned at a later position's hash does not match.
    CliRun earlier = node.log("head", "--stream", "ledger", "--at", "4");
    String wrong = "ledger@4:" + head.out().trim().substring(head.out().trim().indexOf(':') + 1);
    CliRun mismatch = node.log("verify", "--stream", "ledger", "--pin", wrong);
    assertThat(mismatch.code()).isEqualTo(1);
    assertThat(mismatch.out()).contains("pin mismatch");
    assertThat(ChainHead.parse(earlier.out().trim()).position()).isEqualTo(4);
  }

  @Test
  void badInputIsRefusedWithOneLine() {
    for (List<String> args :
        List.of(
            List.of("verify"),
            List.of("verify", "--stream", "ledger", "--all"),
            List.of("verify", "--stream", "ledger", "--pin", "nonsense"),
            List.of("verify", "--stream", "ledger", "--pin", "ledger@x:00"),
            List.of("verify", "--stream", "ledger", "--pin", "ledger@3:abc"),
            List.of("verify", "--stream", "ledger", "--pin", "other@3:" + "0".repeat(64)),
            List.of("verify", "--all", "--pin", "ledger@3:" + "0".repeat(64)),
            List.of("head", "--stream", "ledger", "--at", "-1"),
            List.of("head", "--stream", ""))) {
      CliRun r = node.log(args.toArray(String[]::new));
      assertThat(r.code()).as("%s: %s", args, r.err()).isEqualTo(VcorfuCli.USAGE);
      assertThat(r.err().lines().filter(l -> l.startsWith("vcorfu: ")).count())
          .as("%s: %s", args, r.err())
          .isEqualTo(1);
      assertThat(r.err()).doesNotContain("Exception");
      assertThat(r.out()).isEmpty();
    }
  }
}
