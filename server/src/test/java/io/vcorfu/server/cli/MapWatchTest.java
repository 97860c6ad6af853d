package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu map watch} against a durable node on loopback: every committed change printed once,
 * in log order, as it commits (puts, removes, a removed absent key too); with {@code --from}, what
 * is there first; the JSON form; bad flags refused with one line; a map that does not exist yet
 * waited for and watched from its creation.
 */
class MapWatchTest {
  @TempDir Path tmp;
  private LoopbackNode node;

  @BeforeEach
  void start() {
    node = LoopbackNode.start(tmp.resolve("data"));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void printsEachChangeAsItCommitsInLogOrderOnce() throws Exception {
    assertThat(node.map("put", "--map", "m", "before", "0").code()).isZero();
    CompletableFuture<CliRun> watch =
        CompletableFuture.supplyAsync(() -> node.map("watch", "--map", "m", "--count", "4"));
    // Changes go on until the watcher has printed four: it starts after the map's tail at its
    // start, so which of them it sees first depends on when it subscribed, not the order.
    int i = 0;
    while (!watch.isDone() && i < 200) {
      assertThat(node.map("put", "--map", "m", "k" + i, "v" + i).code()).isZero();
      assertThat(node.map("remove", "--map", "m", "k" + i).code()).isZero();
      i++;
      try {
        watch.get(20, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException notYet) {
        // the next pair
      }
    }
    CliRun run = watch.get(30, TimeUnit.SECONDS);
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.lines()).hasSize(4);
    long last = -1;
    String expectNext = null;
    for (String line : run.lines()) {
      String[] f = line.split(" ", 3);
      long global = Long.parseLong(f[0]);
      assertThat(global).as("log order: %s", run.out()).isGreaterThan(last);
      last = global;
      String change = f[1] + " " + f[2];
      if (expectNext != null) {
        assertThat(change).as(run.out()).isEqualTo(expectNext);
      }
      // after a put of k comes its remove, after a remove the put of the next key
      java.util.regex.Matcher put =
          java.util.regex.Pattern.compile("put k(\\d+) v(\\d+)").matcher(change);
      java.util.regex.Matcher remove =
          java.util.regex.Pattern.compile("remove k(\\d+)").matcher(change);
      if (put.matches()) {
        expectNext = "remove k" + put.group(1);
      } else {
        assertThat(remove.matches()).as("a put or a remove: %s", change).isTrue();
        expectNext = null;
      }
    }
    assertThat(run.out()).doesNotContain("before");
  }

  @Test
  void fromAnAddressPrintsWhatIsThereFirstAndJsonNamesEachPart() {
    assertThat(node.map("put", "--map", "j", "a", "1").code()).isZero();
    assertThat(node.map("remove", "--map", "j", "a").code()).isZero();
    assertThat(node.map("remove", "--map", "j", "never").code()).isEqualTo(3);
    CliRun run = node.map("watch", "--map", "j", "--from", "0", "--count", "3", "--output", "json");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.lines()).hasSize(3);
    assertThat(run.lines().get(0)).contains("\"op\":\"put\"", "\"key\":\"a\"", "\"value\":\"1\"");
    assertThat(run.lines().get(1)).contains("\"op\":\"remove\"", "\"key\":\"a\"");
    assertThat(run.lines().get(2))
        .as("a remove of an absent key is a committed change too")
        .contains("\"op\":\"remove\"", "\"key\":\"never\"");
  }

  @Test
  void aPrefixPrintsOnlyItsKeys() {
    assertThat(node.map("put", "--map", "p", "user/a", "1").code()).isZero();
    assertThat(node.map("put", "--map", "p", "order/1", "x").code()).isZero();
    assertThat(node.map("put", "--map", "p", "user/b", "2").code()).isZero();
    CliRun run =
        node.map("watch", "--map", "p", "--from", "0", "--prefix", "user/", "--count", "2");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.lines())
        .extracting(l -> l.substring(l.indexOf(' ') + 1))
        .containsExactly("put user/a 1", "put user/b 2");
  }

  @Test
  void badFlagsAndAMissingMapAreRefusedWithOneLine() {
    CliRun zero = node.map("watch", "--map", "m", "--count", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--count must be at least 1, got 0");
    CliRun negative = node.map("watch", "--map", "m", "--from", "-1");
    assertThat(negative.code()).isEqualTo(2);
  }

  @Test
  void aMapThatDoesNotExistYetIsWaitedForAndWatchedFromItsCreation() throws Exception {
    // The puts must come after the watcher found the map missing (else it would watch from its
    // own start, after them): the node answering a request naming the map's layout stream says so.
    byte[] layout =
        java.nio.ByteBuffer.allocate(8)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putLong(io.vcorfu.collections.CSMRMap.layoutStream("later").msb())
            .array();
    java.util.concurrent.atomic.AtomicBoolean looked =
        new java.util.concurrent.atomic.AtomicBoolean();
    node.node()
        .observeRequests(
            (request, response, error, nanos) -> {
              if (contains(request.toByteArray(), layout)) {
                looked.set(true);
              }
            });
    CompletableFuture<CliRun> watch =
        CompletableFuture.supplyAsync(() -> node.map("watch", "--map", "later", "--count", "2"));
    org.awaitility.Awaitility.await("the watcher looks for the map")
        .atMost(java.time.Duration.ofSeconds(30))
        .until(() -> looked.get() || watch.isDone());
    node.node().observeRequests(null);
    assertThat(node.map("put", "--map", "later", "first", "1").code()).isZero();
    assertThat(node.map("put", "--map", "later", "second", "2").code()).isZero();
    CliRun run = watch.get(30, TimeUnit.SECONDS);
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.err().strip())
        .isEqualTo("vcorfu: map 'later' does not exist yet; waiting for it to be created");
    assertThat(run.lines())
        .extracting(l -> l.substring(l.indexOf(' ') + 1))
        .containsExactly("put first 1", "put second 2");
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
