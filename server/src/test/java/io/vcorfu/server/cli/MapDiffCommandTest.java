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

/** {@code vcorfu map diff} against a node on loopback: its lines, JSON and refusals. */
class MapDiffCommandTest {
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

  /** The global address of the newest version of {@code key}. */
  private static String newest(String name, String key) {
    CliRun h = map("history", "--map", name, "--key", key, "--limit", "1");
    assertThat(h.code()).as(h.err()).isZero();
    return h.lines().get(0).split(" ")[0];
  }

  @Test
  void listsAddedRemovedAndChangedKeysInKeyOrder() {
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
  void aRangeBackwardsOrBelowMinusOneIsRefusedWithOneLine() {
    map("put", "--map", "r", "k", "v");
    CliRun backwards = map("diff", "--map", "r", "--from", "5", "--to", "4");
    assertThat(backwards.code()).isEqualTo(2);
    assertThat(backwards.err()).contains("--to must be at or above --from (5), not 4");
    CliRun below = map("diff", "--map", "r", "--from", "-2", "--to", "4");
    assertThat(below.code()).isEqualTo(2);
    assertThat(below.err()).contains("--from must be -1 (before any write) or more, not -2");
    CliRun missing = map("diff", "--map", "never-made", "--from", "0", "--to", "4");
    assertThat(missing.code()).isEqualTo(VcorfuCli.NOT_FOUND);
  }
}
