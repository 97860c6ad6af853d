package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code vcorfu map ...} against a node on loopback (diff: its lines, JSON and refusals too). */
class MapCommandsTest {
  private static NettyTransport transport;
  private static Node node;

  @BeforeAll
  static void start() {
    transport = new NettyTransport();
    node = Node.start(NodeConfig.inMemory(new Endpoint("127.0.0.1", 0)), transport);
    node.ready().join();
  }

  @AfterAll
  static void stop() {
    node.close();
    transport.close();
  }

  private static CliRun map(String... args) {
    List<String> all =
        new ArrayList<>(List.of("map", args[0], "--endpoint", node.endpoint().toString()));
    all.addAll(List.of(args).subList(1, args.length));
    return CliRun.of(all);
  }

  /**
   * A map an application filled with values that are not text (and a key that is not text) scans,
   * gets and removes by their string form; JSON names their class.
   */
  @Test
  void valuesAnApplicationStoredThatAreNotTextPrintByTheirStringForm() throws Exception {
    try (io.vcorfu.runtime.VCorfuRuntime rt =
        io.vcorfu.runtime.VCorfuRuntime.using(
            io.vcorfu.client.ClusterStreamLog.connect(
                transport, node.endpoint(), io.vcorfu.client.StreamLogOptions.defaults()))) {
      io.vcorfu.collections.CSMRMap<Object, Object> m =
          io.vcorfu.collections.CSMRMap.open(rt, "numbers", 2);
      m.put("a", 42);
      m.put("b", List.of(1L, 2L));
      m.put(7, "seven");
    }
    CliRun scan = map("scan", "--map", "numbers");
    assertThat(scan.code()).as(scan.err()).isZero();
    assertThat(scan.lines()).containsExactly("7 seven", "a 42", "b [1, 2]");
    CliRun get = map("get", "--map", "numbers", "a", "--output", "json");
    assertThat(get.code()).as(get.err()).isZero();
    assertThat(get.lines())
        .containsExactly("{\"key\":\"a\",\"value\":\"42\",\"type\":\"java.lang.Integer\"}");
    assertThat(map("remove", "--map", "numbers", "a").lines()).containsExactly("42");
  }

  @Test
  void putGetRemoveAndScanBehaveLikeAMap() {
    assertThat(map("put", "--map", "m1", "--buckets", "4", "b", "2").lines())
        .containsExactly("(none)");
    assertThat(map("put", "--map", "m1", "a", "1").lines()).containsExactly("(none)");
    assertThat(map("put", "--map", "m1", "a", "one").lines()).containsExactly("1");
    assertThat(map("put", "--map", "m1", "--fast", "c", "3").code()).isZero();
    assertThat(map("get", "--map", "m1", "a").lines()).containsExactly("one");
    assertThat(map("scan", "--map", "m1").lines()).containsExactly("a one", "b 2", "c 3");
    assertThat(map("scan", "--map", "m1", "--from", "b", "--limit", "1").lines())
        .containsExactly("b 2");
    assertThat(map("remove", "--map", "m1", "b").lines()).containsExactly("2");
    assertThat(map("scan", "--map", "m1").lines()).containsExactly("a one", "c 3");
  }

  @Test
  void historyListsEveryVersionOfTheKeyWithItsAddressOldestFirst() {
    map("put", "--map", "h", "--buckets", "2", "k", "v1");
    map("put", "--map", "h", "other", "x");
    map("put", "--map", "h", "k", "v2");
    map("remove", "--map", "h", "k");
    map("put", "--map", "h", "k", "v3");
    CliRun r = map("history", "--map", "h", "--key", "k");
    assertThat(r.code()).isZero();
    List<String> lines = r.lines();
    assertThat(lines).hasSize(4);
    assertThat(lines)
        .extracting(l -> l.substring(l.indexOf(' ') + 1))
        .containsExactly("v1", "v2", "(removed)", "v3");
    List<Long> addresses =
        lines.stream().map(l -> Long.parseLong(l.substring(0, l.indexOf(' ')))).toList();
    assertThat(addresses).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void historyWithALimitListsTheNewestVersionsAndJsonGivesTheirTime() {
    for (int i = 1; i <= 5; i++) {
      map("put", "--map", "hl", "k", "v" + i);
    }
    CliRun newest = map("history", "--map", "hl", "--key", "k", "--limit", "2");
    assertThat(newest.code()).as(newest.err()).isZero();
    assertThat(newest.lines())
        .extracting(l -> l.substring(l.indexOf(' ') + 1))
        .containsExactly("v4", "v5");
    long fourth = Long.parseLong(newest.lines().get(0).split(" ")[0]);
    CliRun older = map("history", "--map", "hl", "--key", "k", "--before", Long.toString(fourth));
    assertThat(older.lines())
        .extracting(l -> l.substring(l.indexOf(' ') + 1))
        .containsExactly("v1", "v2", "v3");
    CliRun json = map("history", "--map", "hl", "--key", "k", "--limit", "1", "--output", "json");
    assertThat(json.lines()).singleElement().asString().contains("\"value\":\"v5\"", "\"time\":");
    CliRun bad = map("history", "--map", "hl", "--key", "k", "--limit", "0");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("--limit must be at least 1, got 0");
  }

  @Test
  void missingKeysAndMapsAndBucketMismatchesAreOneClearLine() {
    map("put", "--map", "e", "--buckets", "3", "k", "v");
    CliRun missingKey = map("get", "--map", "e", "nope");
    assertThat(missingKey.code()).as("not found").isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(missingKey.err().strip()).isEqualTo("vcorfu: map 'e' has no key 'nope'");

    CliRun missingMap = map("get", "--map", "never-made", "k");
    assertThat(missingMap.code()).isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(missingMap.err().strip())
        .isEqualTo("vcorfu: map 'never-made' does not exist; create it with vcorfu map put");

    CliRun mismatch = map("get", "--map", "e", "--buckets", "5", "k");
    assertThat(mismatch.code()).isEqualTo(1);
    assertThat(mismatch.err())
        .startsWith("vcorfu: ")
        .contains("3")
        .contains("5")
        .doesNotContain("\tat ");
  }

  /** The global address of the newest version of {@code key}. */
  private static String newest(String name, String key) {
    CliRun h = map("history", "--map", name, "--key", key, "--limit", "1");
    assertThat(h.code()).as(h.err()).isZero();
    return h.lines().get(0).split(" ")[0];
  }

  @Test
  void diffListsAddedRemovedAndChangedKeysInKeyOrder() {
    map("put", "--map", "d", "--buckets", "3", "a", "1");
    map("put", "--map", "d", "b", "1");
    map("put", "--map", "d", "c", "one value");
    String first = newest("d", "c");
    map("put", "--map", "d", "a", "2");
    map("remove", "--map", "d", "b");
    map("put", "--map", "d", "c", "one value");
    map("put", "--map", "d", "e", "new");
    String second = newest("d", "e");

    CliRun diff = map("diff", "--map", "d", "--from", first, "--to", second);
    assertThat(diff.code()).as(diff.err()).isZero();
    assertThat(diff.lines()).containsExactly("~ a 1 -> 2", "- b 1", "+ e new");

    CliRun fromEmpty = map("diff", "--map", "d", "--from", "-1", "--to", first);
    assertThat(fromEmpty.code()).as(fromEmpty.err()).isZero();
    assertThat(fromEmpty.lines()).containsExactly("+ a 1", "+ b 1", "+ c one value");

    CliRun untilNow = map("diff", "--map", "d", "--from", first);
    assertThat(untilNow.code()).as(untilNow.err()).isZero();
    assertThat(untilNow.lines()).as("--to defaults to now").isEqualTo(diff.lines());

    CliRun same = map("diff", "--map", "d", "--from", second, "--to", second);
    assertThat(same.code()).isZero();
    assertThat(same.lines()).isEmpty();

    CliRun json = map("diff", "--map", "d", "--from", first, "--to", second, "--output", "json");
    assertThat(json.lines())
        .containsExactly(
            "{\"key\":\"a\",\"change\":\"changed\",\"before\":\"1\",\"after\":\"2\"}",
            "{\"key\":\"b\",\"change\":\"removed\",\"before\":\"1\"}",
            "{\"key\":\"e\",\"change\":\"added\",\"after\":\"new\"}");
  }

  @Test
  void aDiffRangeBackwardsOrBelowMinusOneIsRefusedWithOneLine() {
    map("put", "--map", "r", "k", "v");
    CliRun backwards = map("diff", "--map", "r", "--from", "5", "--to", "4");
    assertThat(backwards.code()).isEqualTo(2);
    assertThat(backwards.err()).contains("--to must be at or above --from (5), not 4");
    CliRun below = map("diff", "--map", "r", "--from", "-2", "--to", "4");
    assertThat(below.code()).isEqualTo(2);
    assertThat(below.err()).contains("--from must be -1 (before any write) or more, not -2");
    CliRun future = map("diff", "--map", "r", "--from", "999999999");
    assertThat(future.code()).isEqualTo(1);
    assertThat(future.err().strip())
        .startsWith("vcorfu: --from 999999999 is past the log's current snapshot ")
        .doesNotContain("\n");
    CliRun missing = map("diff", "--map", "never-made", "--from", "0", "--to", "4");
    assertThat(missing.code()).isEqualTo(VcorfuCli.NOT_FOUND);
  }

  @Test
  void forkCopiesNothingAndDiffAgainstShowsWhatEachSideChanged() {
    map("put", "--map", "p", "--buckets", "3", "a", "1");
    map("put", "--map", "p", "b", "1");
    String first = newest("p", "b");
    map("put", "--map", "p", "c", "1");

    CliRun fork = map("fork", "--map", "p", "--name", "p-now");
    assertThat(fork.code()).as(fork.err()).isZero();
    assertThat(fork.lines()).hasSize(1);
    assertThat(fork.lines().get(0)).startsWith("p-now forked from p at ");
    CliRun early =
        map("fork", "--map", "p", "--name", "p-early", "--at", first, "--output", "json");
    assertThat(early.code()).as(early.err()).isZero();
    assertThat(early.lines())
        .containsExactly("{\"map\":\"p-early\",\"parent\":\"p\",\"base\":" + first + "}");
    assertThat(map("scan", "--map", "p-early").lines()).containsExactly("a 1", "b 1");

    map("put", "--map", "p-now", "a", "2");
    map("remove", "--map", "p-now", "b");
    map("put", "--map", "p-now", "d", "new");
    map("put", "--map", "p", "c", "2"); // the parent after the fork's base: not in the fork
    assertThat(map("scan", "--map", "p-now").lines()).containsExactly("a 2", "c 1", "d new");
    assertThat(map("scan", "--map", "p").lines()).containsExactly("a 1", "b 1", "c 2");

    CliRun diff = map("diff", "--map", "p-now", "--against", "p");
    assertThat(diff.code()).as(diff.err()).isZero();
    assertThat(diff.lines()).containsExactly("~ a 1 -> 2", "- b 1", "~ c 2 -> 1", "+ d new");
    CliRun forks = map("diff", "--map", "p-early", "--against", "p-now");
    assertThat(forks.code()).as(forks.err()).isZero();
    assertThat(forks.lines()).containsExactly("~ a 2 -> 1", "+ b 1", "- c 1", "- d new");
    assertThat(map("list").lines()).contains("p-now", "p-early");
  }

  @Test
  void aForkOfATakenNameOrABadVersionAndABadDiffAreRefusedWithOneLine() {
    map("put", "--map", "q", "k", "v");
    map("put", "--map", "q-taken", "k", "v");
    CliRun taken = map("fork", "--map", "q", "--name", "q-taken");
    assertThat(taken.code()).as(taken.err()).isEqualTo(2);
    assertThat(taken.err().lines().filter(l -> l.startsWith("vcorfu: ")))
        .containsExactly("vcorfu: cannot fork map 'q' as 'q-taken': that name is taken");
    CliRun future = map("fork", "--map", "q", "--name", "q-f", "--at", "999999999");
    assertThat(future.code()).as(future.err()).isEqualTo(2);
    assertThat(future.err()).contains("past the log's tail");
    CliRun below = map("fork", "--map", "q", "--name", "q-f", "--at", "-2");
    assertThat(below.code()).isEqualTo(2);
    assertThat(below.err()).contains("--at must be -1 (before any write) or more, not -2");
    assertThat(map("list").lines()).as("nothing written").doesNotContain("q-f");
    assertThat(map("fork", "--map", "never-made", "--name", "q-g").code())
        .isEqualTo(VcorfuCli.NOT_FOUND);

    CliRun both = map("diff", "--map", "q", "--against", "q-taken", "--from", "1");
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err()).contains("leave out --from and --to");
    CliRun neither = map("diff", "--map", "q");
    assertThat(neither.code()).isEqualTo(2);
    assertThat(neither.err()).contains("give --from G (two versions of --map) or --against MAP2");
    assertThat(map("diff", "--map", "q", "--against", "never-made").code())
        .isEqualTo(VcorfuCli.NOT_FOUND);
  }

  @Test
  void mergePrintsEachKeyItChangedAndASummaryAndMergingAgainChangesNothing() {
    map("put", "--map", "m", "--buckets", "3", "a", "1");
    map("put", "--map", "m", "b", "1");
    map("put", "--map", "m", "c", "1");
    assertThat(map("fork", "--map", "m", "--name", "m-f").code()).isZero();
    map("put", "--map", "m-f", "a", "2");
    map("remove", "--map", "m-f", "b");
    map("put", "--map", "m-f", "d", "new");
    map("put", "--map", "m", "c", "3"); // only the target: kept

    CliRun merge = map("merge", "--map", "m", "--from", "m-f");
    assertThat(merge.code()).as(merge.err()).isZero();
    assertThat(merge.lines()).hasSize(4);
    assertThat(merge.lines().subList(0, 3)).containsExactly("~ a 1 -> 2", "- b 1", "+ d new");
    assertThat(merge.lines().get(3))
        .matches(
            "merged m-f at \\d+ into m \\(base m at \\d+\\): 3 changed, 0 conflicts, commit \\d+");
    assertThat(map("scan", "--map", "m").lines()).containsExactly("a 2", "c 3", "d new");

    CliRun again = map("merge", "--map", "m", "--from", "m-f", "--output", "json");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.lines()).hasSize(1);
    assertThat(again.lines().get(0))
        .matches(
            "\\{\"map\":\"m\",\"from\":\"m-f\",\"sourceVersion\":\\d+,\"base\":\"m-f\","
                + "\"baseVersion\":\\d+,\"changed\":0,\"commit\":\\d+,\"conflicts\":\\[\\]\\}");

    // The parent into the fork: a conflict on c, settled by --on-conflict.
    map("put", "--map", "m-f", "c", "4");
    CliRun json =
        map("merge", "--map", "m-f", "--from", "m", "--on-conflict", "target", "--output", "json");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(json.lines().get(json.lines().size() - 1)).contains("\"conflicts\":[\"c\"]");
    assertThat(map("scan", "--map", "m-f").lines()).containsExactly("a 2", "c 4", "d new");
    map("put", "--map", "m", "c", "5");
    CliRun theirs = map("merge", "--map", "m-f", "--from", "m", "--on-conflict", "source");
    assertThat(theirs.code()).as(theirs.err()).isZero();
    assertThat(theirs.lines().get(0)).isEqualTo("~ c 4 -> 5");
    assertThat(theirs.lines().get(1)).contains("1 changed, 1 conflict (source won: c), commit ");
  }

  @Test
  void aConflictWithFailExitsOneAndBadInputExitsTwoAndNeitherWritesAnything() {
    map("put", "--map", "n", "a", "1");
    map("put", "--map", "n", "b", "1");
    map("fork", "--map", "n", "--name", "n-f");
    map("put", "--map", "n", "a", "2");
    map("put", "--map", "n-f", "a", "3");
    map("remove", "--map", "n", "b");
    map("put", "--map", "n-f", "b", "3");
    map("put", "--map", "n-f", "c", "3");
    map("put", "--map", "unrelated", "a", "1");

    CliRun conflict = map("merge", "--map", "n", "--from", "n-f");
    assertThat(conflict.code()).as(conflict.err()).isEqualTo(1);
    assertThat(conflict.out()).isEmpty();
    assertThat(conflict.err().lines())
        .containsExactly(
            "vcorfu: merge of map 'n-f' into 'n' conflicts on 2 keys a, b (changed on both sides"
                + " since their common base); nothing written");
    assertThat(map("scan", "--map", "n").lines()).as("nothing written").containsExactly("a 2");

    CliRun unrelated = map("merge", "--map", "n", "--from", "unrelated");
    assertThat(unrelated.code()).isEqualTo(2);
    assertThat(unrelated.err()).contains("they share no history");
    CliRun itself = map("merge", "--map", "n", "--from", "n");
    assertThat(itself.code()).isEqualTo(2);
    assertThat(itself.err()).contains("cannot merge map 'n' into itself");
    CliRun policy = map("merge", "--map", "n", "--from", "n-f", "--on-conflict", "mine");
    assertThat(policy.code()).isEqualTo(2);
    assertThat(policy.err()).contains("--on-conflict is source, target or fail, not 'mine'");
    assertThat(map("merge", "--map", "n", "--from", "never-made").code())
        .isEqualTo(VcorfuCli.NOT_FOUND);
    assertThat(map("scan", "--map", "n").lines()).as("nothing written").containsExactly("a 2");
  }
}
