package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vcorfu.layout.TestEnsembles;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.server.cli.CliRun;
import io.vcorfu.server.cluster.ClusterConfig;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A node's HTTP port: Prometheus metrics that count the requests it answered, {@code /health} that
 * says serving (200) or not and why (503), {@code /status.json} and the status page; and {@code
 * vcorfu ping}, which tells serving, not serving and unreachable nodes apart.
 */
class NodeHttpTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp;

  private static double value(String metrics, String name) {
    return metrics
        .lines()
        .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  @Test
  void aServingNodeReportsMetricsHealthAndStatus() throws Exception {
    try (NettyTransport transport = new NettyTransport();
        Node node =
            Node.start(
                NodeConfig.durable(new Endpoint("127.0.0.1", 0), tmp.resolve("data")), transport)) {
      node.ready().join();
      try (NodeHttp http = NodeHttp.start(node, "127.0.0.1", 0)) {
        String endpoint = node.endpoint().toString();
        for (int i = 0; i < 5; i++) {
          CliRun r = CliRun.of("log", "append", "--endpoint", endpoint, "--stream", "m", "v" + i);
          assertThat(r.code()).as(r.err()).isZero();
        }

        HttpResponse<String> metrics = get(http.port(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body())
            .contains("vcorfu_requests_seconds_bucket{")
            .contains("vcorfu_requests_seconds_count{outcome=\"ok\"")
            .contains("vcorfu_request_bytes_sum{")
            .contains("vcorfu_serving 1.0")
            .contains("vcorfu_epoch ")
            .contains("vcorfu_fsync_seconds_bucket{")
            .contains("vcorfu_group_commit_records_bucket{")
            .contains("vcorfu_read_lease_holders")
            .contains("vcorfu_storage_file_bytes ")
            .contains("vcorfu_storage_live_bytes ")
            .contains("vcorfu_log_trim_mark ")
            .contains("vcorfu_log_kept_holes ")
            .contains("vcorfu_log_needed_from ")
            .contains("vcorfu_compaction_reclaimed_bytes ")
            .contains("vcorfu_disk_alarm ")
            .contains("jvm_memory_used_bytes")
            .contains("process_uptime_seconds");
        long answered =
            metrics
                .body()
                .lines()
                .filter(l -> l.startsWith("vcorfu_requests_seconds_count{"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
        assertThat(answered).as("the five appends' requests, at least").isGreaterThanOrEqualTo(5);
        assertThat(value(metrics.body(), "vcorfu_appends_total"))
            .as("the five appends, stored by this node's replicas")
            .isGreaterThanOrEqualTo(5);
        assertThat(value(metrics.body(), "vcorfu_fsync_seconds_count")).isPositive();
        assertThat(value(metrics.body(), "vcorfu_fsync_seconds_sum")).isPositive();
        assertThat(value(metrics.body(), "vcorfu_group_commit_records_sum"))
            .as("every append made durable by an fsync")
            .isGreaterThanOrEqualTo(5);
        assertThat(value(metrics.body(), "vcorfu_group_commit_records_count"))
            .as("one group per fsync")
            .isEqualTo(value(metrics.body(), "vcorfu_fsync_seconds_count"));

        HttpResponse<String> health = get(http.port(), "/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(new ObjectMapper().readTree(health.body()).get("status").asText())
            .isEqualTo("serving");

        JsonNode status = new ObjectMapper().readTree(get(http.port(), "/status.json").body());
        assertThat(status.get("serving").asBoolean()).isTrue();
        assertThat(status.get("layout").get("segments")).isNotEmpty();
        assertThat(status.get("nodes").get(0).get("state").asText()).isEqualTo("serving");
        assertThat(status.get("logTail").asLong()).as("the five appends").isGreaterThanOrEqualTo(4);
        assertThat(status.get("globalTail").asLong())
            .as("the sequencer's tail covers the five appends")
            .isGreaterThanOrEqualTo(4);
        JsonNode streams = status.get("streams");
        assertThat(streams.get("count").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(streams.get("shown"))
            .anySatisfy(
                t -> {
                  assertThat(t.get("stream").asText())
                      .isEqualTo(io.vcorfu.protocol.StreamId.of("m").toString());
                  assertThat(t.get("tail").asLong()).isEqualTo(4);
                  assertThat(t.get("trimMark").asLong()).isZero();
                });
        assertThat(status.get("recentChanges").isArray()).isTrue();
        JsonNode storage = status.get("storage");
        assertThat(storage.get("streams").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(storage.get("logNeededFrom").asLong()).as("no stream trimmed yet").isEqualTo(-1);
        assertThat(storage.get("diskAlarm").asBoolean()).isFalse();

        HttpResponse<String> page = get(http.port(), "/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(page.body()).contains("vcorfu node").contains("/status.json");
        assertThat(get(http.port(), "/nothing-here").statusCode()).isEqualTo(404);
        assertThat(get(http.port(), "/health?verbose=1").statusCode()).isEqualTo(200);
        HttpResponse<String> posted =
            HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/health"))
                    .POST(HttpRequest.BodyPublishers.ofString("x"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(posted.statusCode()).isEqualTo(405);
        assertThat(posted.body()).isEqualTo("only GET and HEAD\n");
        HttpResponse<String> head =
            HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/health"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();

        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
          dead = s.getLocalPort();
        }
        CliRun ping = CliRun.of("ping", "--endpoint", endpoint + ",127.0.0.1:" + dead);
        assertThat(ping.code()).as("one node does not answer").isEqualTo(1);
        assertThat(ping.lines()).hasSize(2);
        assertThat(ping.lines().get(0)).startsWith(endpoint + " serving epoch ");
        assertThat(ping.lines().get(1)).startsWith("127.0.0.1:" + dead + " unreachable: ");
        CliRun json = CliRun.of("ping", "--endpoint", endpoint, "--output", "json");
        assertThat(json.code()).isZero();
        assertThat(new ObjectMapper().readTree(json.out()).get("state").asText())
            .isEqualTo("serving");
      }
    }
  }

  /** A cluster node with no layout yet answers pings but does not serve: 503, and why. */
  @Test
  void aNodeThatDoesNotServeSaysWhy() throws Exception {
    try (TestingServer zk = TestEnsembles.server();
        NettyTransport transport = new NettyTransport();
        Node node =
            Node.start(
                NodeConfig.inMemory(new Endpoint("127.0.0.1", 0))
                    .inCluster(ClusterConfig.of(zk.getConnectString(), "no-layout-yet")),
                transport);
        NodeHttp http = NodeHttp.start(node, "127.0.0.1", 0)) {
      Awaitility.await("the node listens")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(() -> get(http.port(), "/health").statusCode() == 503);
      JsonNode health = new ObjectMapper().readTree(get(http.port(), "/health").body());
      assertThat(health.get("status").asText()).isEqualTo("not serving");
      assertThat(health.get("reason").asText()).contains("no layout");
      assertThat(get(http.port(), "/metrics").body()).contains("vcorfu_serving 0.0");
      CliRun ping = CliRun.of("ping", "--endpoint", node.endpoint().toString());
      assertThat(ping.code()).isEqualTo(1);
      assertThat(ping.out()).contains(" not serving: ").contains("no layout");
    }
  }
}
