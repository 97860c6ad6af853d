package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.SMRMap;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.VCorfuRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vcorfu log list} and {@code vcorfu map list} read the cluster's name directory: every name
 * a client wrote or opened, once, whichever clients and however many times; across a restart of the
 * node, and after the streams and the global log were trimmed.
 */
class NameListTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private static ClusterStreamLog client(LoopbackNode node) {
    return ClusterStreamLog.connect(
        node.transport(), node.node().endpoint(), StreamLogOptions.defaults());
  }

  private static CliRun map(LoopbackNode node, String... args) {
    List<String> all =
        new ArrayList<>(List.of("map", args[0], "--endpoint", node.node().endpoint().toString()));
    all.addAll(List.of(args).subList(1, args.length));
    return CliRun.of(all);
  }

  private static CliRun ok(CliRun r) {
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  private static long directoryTail(ClusterStreamLog log) {
    return log.tails(List.of(NameDirectory.STREAM))
        .join()
        .streamTails()
        .getOrDefault(NameDirectory.STREAM, -1L);
  }

  /** The JSON lines of {@code r} by name (each name once: a second line would fail). */
  private static Map<String, JsonNode> byName(CliRun r) throws Exception {
    Map<String, JsonNode> out = new HashMap<>();
    for (String line : r.lines()) {
      JsonNode n = JSON.readTree(line);
      assertThat(out.put(n.get("name").asText() + " " + n.get("kind").asText(), n))
          .as("listed once: " + line)
          .isNull();
    }
    return out;
  }

  @Test
  void namesWrittenByTwoClientsAreListedOnceEachAndAKnownNameCostsNoWrite() throws Exception {
    try (LoopbackNode node = LoopbackNode.start(tmp.resolve("data"));
        ClusterStreamLog log = client(node)) {
      ok(node.log("append", "--stream", "users", "--stream", "audit", "alice-joined"));
      ok(node.log("append", "--stream", "users", "bob-joined"));
      try (VCorfuRuntime rt = VCorfuRuntime.connect(node.node().endpoint().toString())) {
        CSMRMap.<String, String>open(rt, "accounts", 4).put("alice", "100");
        SMRMap.<String, Integer>open(rt, "stock").put("apples", 3);
      }
      ok(map(node, "put", "--map", "accounts", "bob", "50"));
      ok(map(node, "put", "--map", "cities", "paris", "fr"));

      assertThat(ok(node.log("list")).lines()).containsExactly("audit", "stock", "users");
      assertThat(ok(node.log("list", "--prefix", "us")).lines()).containsExactly("users");
      assertThat(ok(map(node, "list")).lines()).containsExactly("accounts", "cities");
      assertThat(ok(map(node, "list", "--prefix", "z")).lines()).isEmpty();

      Map<String, JsonNode> logs = byName(ok(node.log("list", "--output", "json")));
      assertThat(logs).containsOnlyKeys("audit log", "stock object", "users log");
      JsonNode users = logs.get("users log");
      assertThat(users.get("stream").asText()).isEqualTo(StreamId.of("users").toString());
      assertThat(users.get("tail").asLong()).as("two entries").isEqualTo(1);
      assertThat(users.get("firstAddress").asLong()).isNotNegative();
      assertThat(logs.get("stock object").get("type").asText()).isEqualTo(SMRMap.class.getName());
      Map<String, JsonNode> maps = byName(ok(map(node, "list", "--output", "json")));
      assertThat(maps).containsOnlyKeys("accounts map", "cities map");
      assertThat(maps.get("accounts map").get("stream").asText())
          .isEqualTo(CSMRMap.layoutStream("accounts").toString());

      long tail = directoryTail(log);
      ok(node.log("append", "--stream", "users", "--stream", "audit", "carol-joined"));
      ok(map(node, "put", "--map", "accounts", "carol", "7"));
      assertThat(directoryTail(log)).as("names listed already: no write").isEqualTo(tail);
    }
  }

  @Test
  void aNameRegisteredByTwoClientsAtOnceIsListedOnceAtItsFirstAddress() throws Exception {
    int names = 20;
    try (LoopbackNode node = LoopbackNode.start(tmp.resolve("data"));
        ClusterStreamLog a = client(node);
        ClusterStreamLog b = client(node);
        ClusterStreamLog c = client(node)) {
      NameDirectory first = new NameDirectory(a);
      NameDirectory second = new NameDirectory(b);
      List<CompletableFuture<DirectoryEntry>> fromFirst = new ArrayList<>();
      List<CompletableFuture<DirectoryEntry>> fromSecond = new ArrayList<>();
      CyclicBarrier together = new CyclicBarrier(2);
      CompletableFuture<Void> one =
          CompletableFuture.runAsync(() -> race(together, first, names, fromFirst));
      CompletableFuture<Void> two =
          CompletableFuture.runAsync(() -> race(together, second, names, fromSecond));
      one.get(60, TimeUnit.SECONDS);
      two.get(60, TimeUnit.SECONDS);

      // A record written again (a client that lost the race) changes nothing either.
      StreamId raced = StreamId.of("race-0");
      a.append(
              List.of(NameDirectory.STREAM),
              DirectoryEntry.of(DirectoryEntry.LOG, "race-0", "", raced, 0).encode())
          .join();

      List<DirectoryEntry> listed = new NameDirectory(c).list().get(60, TimeUnit.SECONDS);
      assertThat(listed).extracting(DirectoryEntry::name).doesNotHaveDuplicates().hasSize(names);
      for (int i = 0; i < names; i++) {
        DirectoryEntry e = listed.get(indexOf(listed, "race-" + i));
        long firstAddress =
            Math.min(
                fromFirst.get(i).join().firstAddress(), fromSecond.get(i).join().firstAddress());
        assertThat(e.firstAddress()).as("the first registration wins").isEqualTo(firstAddress);
        assertThat(e.stream()).isEqualTo(StreamId.of("race-" + i));
      }
      List<String> cli = ok(node.log("list", "--prefix", "race-")).lines();
      assertThat(cli).hasSize(names).doesNotHaveDuplicates();
    }
  }

  private static int indexOf(List<DirectoryEntry> listed, String name) {
    for (int i = 0; i < listed.size(); i++) {
      if (listed.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new AssertionError(name + " is not listed: " + listed);
  }

  private static void race(
      CyclicBarrier together,
      NameDirectory directory,
      int names,
      List<CompletableFuture<DirectoryEntry>> out) {
    try {
      together.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    for (int i = 0; i < names; i++) {
      String name = "race-" + i;
      out.add(
          directory.register(
              DirectoryEntry.of(DirectoryEntry.LOG, name, "", StreamId.of(name), 0)));
    }
    CompletableFuture.allOf(out.toArray(CompletableFuture[]::new)).join();
  }

  @Test
  void theStatusPageNamesTheStreamsItKnowsTheNamesOf() throws Exception {
    try (LoopbackNode node = LoopbackNode.start(tmp.resolve("data"));
        io.vcorfu.server.NodeHttp http =
            io.vcorfu.server.NodeHttp.start(node.node(), "127.0.0.1", 0);
        ClusterStreamLog log = client(node)) {
      ok(node.log("append", "--stream", "users", "alice-joined"));
      ok(map(node, "put", "--map", "accounts", "--buckets", "2", "alice", "100"));
      StreamId unnamed = StreamId.of("written-by-id");
      log.append(List.of(unnamed), new byte[] {1}).join();
      java.net.http.HttpClient httpClient = java.net.http.HttpClient.newHttpClient();
      java.net.URI status = java.net.URI.create("http://127.0.0.1:" + http.port() + "/status.json");
      Map<String, String> names =
          Awaitility.await("the status page names the streams")
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(100))
              .until(
                  () -> {
                    String body =
                        httpClient
                            .send(
                                java.net.http.HttpRequest.newBuilder(status)
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString())
                            .body();
                    Map<String, String> byId = new HashMap<>();
                    for (JsonNode t : JSON.readTree(body).get("streams").get("shown")) {
                      byId.put(
                          t.get("stream").asText(), t.has("name") ? t.get("name").asText() : null);
                    }
                    return byId;
                  },
                  m -> m.get(StreamId.of("users").toString()) != null);
      assertThat(names.get(StreamId.of("users").toString())).isEqualTo("users");
      assertThat(names.get(CSMRMap.layoutStream("accounts").toString()))
          .isEqualTo("accounts/layout");
      String bucket =
          CSMRMap.bucketStreamName(
              "accounts",
              CSMRMap.<String, String>open(VCorfuRuntime.using(client(node)), "accounts")
                  .bucketOf("alice"));
      assertThat(names.get(StreamId.of(bucket).toString())).isEqualTo(bucket);
      assertThat(names.get(NameDirectory.STREAM.toString())).isEqualTo("(name directory)");
      assertThat(names)
          .as("a stream nobody named is shown by its id")
          .containsKey(unnamed.toString());
      assertThat(names.get(unnamed.toString())).isNull();
    }
  }

  @Test
  void theListSurvivesARestartOfTheNode() {
    Path data = tmp.resolve("data");
    try (LoopbackNode node = LoopbackNode.start(data)) {
      ok(node.log("append", "--stream", "orders", "o-1"));
      ok(map(node, "put", "--map", "carts", "alice", "3"));
    }
    try (LoopbackNode node = LoopbackNode.start(data)) {
      assertThat(ok(node.log("list")).lines()).containsExactly("orders");
      assertThat(ok(map(node, "list")).lines()).containsExactly("carts");
    }
  }

  @Test
  void theListSurvivesTrimsOfTheStreamsAndOfTheGlobalLog() throws Exception {
    try (LoopbackNode node = LoopbackNode.start(tmp.resolve("data"));
        ClusterStreamLog log = client(node)) {
      for (int i = 0; i < 3; i++) {
        ok(node.log("append", "--stream", "events", "e-" + i));
      }
      ok(map(node, "put", "--map", "sessions", "s1", "open"));
      ok(node.log("trim", "--stream", "events", "--before", "3"));
      assertThatThrownBy(() -> log.trimStream(NameDirectory.STREAM, 1).join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(BadRequestException.class)
          .hasMessageContaining("never trimmed");

      long last = log.tails(List.of()).join().globalTail();
      Awaitility.await("the global log trimmed past every entry")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> node.node().trimLogNow(Duration.ZERO), m -> m > last);

      assertThat(ok(node.log("list")).lines()).containsExactly("events");
      assertThat(ok(map(node, "list")).lines()).containsExactly("sessions");
    }
  }
}
