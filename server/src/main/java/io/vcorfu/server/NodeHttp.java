package io.vcorfu.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.proto.PingResponse;
import io.vcorfu.protocol.proto.RebuildProgress;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * A node's HTTP port for operators: {@code /metrics} (Prometheus text format), {@code /health} (200
 * while the node serves, 503 with the reason otherwise), {@code /status.json} (what the node knows:
 * its layout, epochs, rebuild progress) and {@code /} (a page showing it, refreshed every second).
 *
 * <p>Status: the layout, each node's state as it answers a ping, this node's log tail, the
 * cluster's global tail (the sequencer's), the streams this node's stream replica holds (by id, and
 * by name where the cluster's name directory has it: a stream's id is derived from its name, which
 * replicas do not keep; see {@link StatusNames}) with their tails and trim marks (the first {@value
 * #STREAMS_SHOWN} by id, and how many), rebuild progress and the recent layout changes.
 *
 * <p>Metrics: {@code vcorfu_requests_seconds} per request type and outcome (a histogram), {@code
 * vcorfu_request_bytes} per request type (writes: the bytes a client sent), {@code
 * vcorfu_tokens_issued_total}, {@code vcorfu_appends_total} per kind of write, {@code
 * vcorfu_fsync_seconds} (a histogram of each fsync's latency), {@code vcorfu_group_commit_records}
 * (a histogram of the records each fsync made durable), gauges of the epoch, the sealed epoch,
 * whether the node serves, read-lease holders, foreground write p99 and rebuild progress, and the
 * JVM's memory, GC, threads, classes, processors and uptime.
 */
public final class NodeHttp implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Streams listed by the status page, at most (the first ones by id; the count says all). */
  static final int STREAMS_SHOWN = 100;

  /** The requests that store an entry on this node: an append's write at one replica. */
  private static final java.util.Set<Request.PayloadCase> WRITES =
      java.util.EnumSet.of(
          Request.PayloadCase.SEQUENCED_WRITE,
          Request.PayloadCase.LOG_WRITE,
          Request.PayloadCase.CHAIN_WRITE,
          Request.PayloadCase.STREAM_WRITE);

  private final Node node;
  private final HttpAccess server;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, DistributionSummary> sizes = new ConcurrentHashMap<>();
  private final Map<String, Counter> appends = new ConcurrentHashMap<>();

  private final Counter tokens;

  /** The names of the streams the status shows. */
  private final StatusNames names;

  private final java.util.List<AutoCloseable> binders = new java.util.ArrayList<>();

  private NodeHttp(Node node, HttpAccess server) {
    this.node = node;
    this.server = server;
    this.names = new StatusNames(node);
    this.tokens =
        Counter.builder("vcorfu.tokens.issued")
            .description("Tokens the node's sequencer issued")
            .register(registry);
    gauge("vcorfu.epoch", "The epoch of the layout the node follows", p -> p.getEpoch());
    gauge(
        "vcorfu.sealed.epoch", "The highest epoch the node is sealed at", p -> p.getSealedEpoch());
    gauge(
        "vcorfu.serving", "1 while the node serves its roles, else 0", p -> p.getServing() ? 1 : 0);
    Gauge.builder("vcorfu.log.tail", node, n -> n.logTail())
        .description("The highest global address the node's log replica holds")
        .register(registry);
    gauge(
        "vcorfu.foreground.p99.micros",
        "99th percentile of the node's foreground writes over the last seconds",
        p -> p.getForegroundP99Micros());
    gauge(
        "vcorfu.rebuild.bytes.copied",
        "Bytes the node's current rebuild copied (0 when none runs)",
        p -> rebuild(p).getBytesCopied());
    gauge(
        "vcorfu.rebuild.entries.left",
        "Slots the node's current rebuild has left to examine",
        p -> rebuild(p).getEntriesLeft());
    gauge(
        "vcorfu.rebuild.bytes.per.second",
        "Copy rate of the node's current rebuild",
        p -> rebuild(p).getBytesPerSecond());
    space("vcorfu.storage.file.bytes", "Bytes of the node's segment files", s -> s.getFileBytes());
    space(
        "vcorfu.storage.live.bytes",
        "About how many bytes of the segment files are live (the rest compaction reclaims)",
        s -> s.getLiveBytes());
    space("vcorfu.storage.segments", "Segment files of the node", s -> s.getSegments());
    space(
        "vcorfu.log.trim.mark",
        "The trim mark of the node's log replica: addresses below it are trimmed",
        s -> s.getLogTrimMark());
    space(
        "vcorfu.log.kept.holes",
        "Holes the node's log replica keeps below its trim mark (from writes that never finished)",
        s -> s.getLogKeptHoles());
    space(
        "vcorfu.log.needed.from",
        "The lowest global address the log must keep for the streams this node holds (-1: none)",
        s -> s.getLogNeededFrom() == Long.MAX_VALUE ? -1 : s.getLogNeededFrom());
    space(
        "vcorfu.streams.trimmed",
        "Streams the node holds that were trimmed",
        s -> s.getTrimmedStreams());
    space(
        "vcorfu.compaction.segments",
        "Segments compaction wrote again and deleted since the node started",
        s -> s.getSegmentsCompacted());
    space(
        "vcorfu.compaction.copied.bytes",
        "Payload bytes compaction wrote again since the node started",
        s -> s.getCompactionCopiedBytes());
    space(
        "vcorfu.compaction.reclaimed.bytes",
        "Bytes of segment files compaction deleted since the node started",
        s -> s.getCompactionReclaimedBytes());
    space(
        "vcorfu.disk.free.bytes",
        "Free bytes on the data directory's file system (-1 in memory)",
        s -> s.getFreeDiskBytes());
    space(
        "vcorfu.disk.alarm",
        "1 while the disk-space alarm is raised (writes refused), else 0",
        s -> s.getDiskAlarm() ? 1 : 0);
    Gauge.builder("vcorfu.read.lease.holders", node, n -> n.readLeaseHolders())
        .description("Clients holding a read lease from this node's sequencer")
        .register(registry);
    Timer fsyncs =
        Timer.builder("vcorfu.fsync")
            .description("fsyncs of the node's storage and how long each took")
            .publishPercentileHistogram()
            .register(registry);
    DistributionSummary groups =
        DistributionSummary.builder("vcorfu.group.commit")
            .baseUnit("records")
            .description("Records each fsync made durable (the group-commit size)")
            .publishPercentileHistogram()
            .register(registry);
    node.observeForces(
        (nanos, records) -> {
          fsyncs.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
          groups.record(records);
        });
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    binders.add(gc);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    node.observeRequests(this::answered);
  }

  /**
   * Serves {@code node}'s HTTP endpoints on {@code host}:{@code port} (port 0: any free one, see
   * {@link #port()}), in plaintext.
   */
  public static NodeHttp start(Node node, String host, int port) throws IOException {
    return start(node, host, port, null, null);
  }

  /**
   * Serves {@code node}'s endpoints on {@code host}:{@code port}: over HTTPS with {@code tls} (the
   * node's own TLS material, reloaded as its files change), to callers presenting a certificate
   * from the node's CA as the node's RPC port does, or one of {@code tokens} when not null (see
   * {@link HttpAccess}); plaintext HTTP when {@code tls} is null.
   */
  public static NodeHttp start(
      Node node,
      String host,
      int port,
      io.vcorfu.protocol.netty.TlsContexts tls,
      io.vcorfu.protocol.netty.BearerTokens tokens)
      throws IOException {
    NodeHttp[] http = new NodeHttp[1];
    HttpAccess server =
        HttpAccess.start(
            host,
            port,
            tls,
            tokens,
            path ->
                http[0] == null
                    ? HttpAccess.Reply.text(503, "the node is starting\n")
                    : http[0].answer(path));
    http[0] = new NodeHttp(node, server);
    return http[0];
  }

  /** {@code https} when the endpoints are served over TLS, else {@code http}. */
  public String scheme() {
    return server.scheme();
  }

  /** The port the endpoints are served on. */
  public int port() {
    return server.port();
  }

  private void gauge(String name, String description, ToDoubleFunction<PingResponse> f) {
    Gauge.builder(name, node, n -> f.applyAsDouble(n.status()))
        .description(description)
        .register(registry);
  }

  private void space(
      String name, String description, ToDoubleFunction<io.vcorfu.protocol.proto.StorageSpace> f) {
    Gauge.builder(name, node, n -> f.applyAsDouble(n.space()))
        .description(description)
        .register(registry);
  }

  private static RebuildProgress rebuild(PingResponse p) {
    return p.getRebuild().getDone() ? RebuildProgress.getDefaultInstance() : p.getRebuild();
  }

  private void answered(Request request, Response response, Throwable error, long nanos) {
    String type = request.getPayloadCase().name();
    boolean failed = error != null || (response != null && response.hasError());
    timers
        .computeIfAbsent(
            type + (failed ? "/error" : "/ok"),
            k ->
                Timer.builder("vcorfu.requests")
                    .description("Requests the node answered, from arrival to answer")
                    .tag("type", type)
                    .tag("outcome", failed ? "error" : "ok")
                    .publishPercentileHistogram()
                    .register(registry))
        .record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    sizes
        .computeIfAbsent(
            type,
            k ->
                DistributionSummary.builder("vcorfu.request")
                    .baseUnit("bytes")
                    .description("Size of the requests the node received")
                    .tag("type", type)
                    .register(registry))
        .record(request.getSerializedSize());
    if (!failed && WRITES.contains(request.getPayloadCase())) {
      appends
          .computeIfAbsent(
              type,
              k ->
                  Counter.builder("vcorfu.appends")
                      .description(
                          "Entries this node stored, by the kind of write that stored them")
                      .tag("type", type)
                      .register(registry))
          .increment();
    }
    if (response != null && response.hasToken()) {
      tokens.increment(response.getToken().getTokensCount());
    }
  }

  /** The answer to a request for {@code path}. */
  private HttpAccess.Reply answer(String path) throws IOException {
    return switch (path) {
      case "/metrics" -> metrics();
      case "/health" -> health();
      case "/status.json" -> statusJson();
      case "/" -> page();
      default -> HttpAccess.Reply.text(404, "no such page\n");
    };
  }

  private HttpAccess.Reply metrics() {
    return new HttpAccess.Reply(200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
  }

  private HttpAccess.Reply health() {
    PingResponse p = node.status();
    ObjectNode body = JSON.createObjectNode();
    body.put("node", String.valueOf(node.endpoint()));
    body.put("status", p.getServing() ? "serving" : "not serving");
    if (!p.getServing()) {
      body.put("reason", p.getNotServingReason());
    }
    body.put("epoch", p.getEpoch());
    return new HttpAccess.Reply(p.getServing() ? 200 : 503, "application/json", body.toString());
  }

  private HttpAccess.Reply statusJson() throws IOException {
    PingResponse p = node.status();
    ObjectNode body = JSON.createObjectNode();
    body.put("node", String.valueOf(node.endpoint()));
    body.put("serving", p.getServing());
    body.put("reason", p.getNotServingReason());
    body.put("epoch", p.getEpoch());
    body.put("sealedEpoch", p.getSealedEpoch());
    body.put("cluster", p.getCluster());
    body.put("managing", p.getManaging());
    body.put("foregroundWrites", p.getForegroundWrites());
    body.put("foregroundP99Micros", p.getForegroundP99Micros());
    Layout layout = node.layout();
    if (layout != null) {
      body.put("sequencer", String.valueOf(layout.sequencer()));
      body.set("layout", JSON.readTree(layout.toJson()));
    }
    if (layout != null) {
      com.fasterxml.jackson.databind.node.ArrayNode nodes = body.putArray("nodes");
      // Every node asked at once; each answer awaited for at most half a second from now.
      Map<io.vcorfu.protocol.Endpoint, java.util.concurrent.CompletableFuture<PingResponse>> asked =
          new java.util.LinkedHashMap<>();
      for (io.vcorfu.protocol.Endpoint e : layout.allServers()) {
        asked.put(
            e,
            e.equals(node.endpoint())
                ? java.util.concurrent.CompletableFuture.completedFuture(p)
                : node.ping(e));
      }
      long deadline = System.nanoTime() + 500_000_000L;
      for (io.vcorfu.protocol.Endpoint e : layout.allServers()) {
        ObjectNode n = nodes.addObject();
        n.put("endpoint", e.toString());
        try {
          PingResponse q =
              asked
                  .get(e)
                  .get(
                      Math.max(0, deadline - System.nanoTime()),
                      java.util.concurrent.TimeUnit.NANOSECONDS);
          n.put("state", q.getServing() ? "serving" : "not serving");
          n.put("reason", q.getNotServingReason());
          n.put("epoch", q.getEpoch());
          n.put("rebuilding", layout.isRebuilding(e));
        } catch (Exception unanswered) {
          n.put("state", "unresponsive");
          n.put("reason", String.valueOf(unanswered.getMessage()));
        }
      }
      for (io.vcorfu.protocol.Endpoint e : layout.removed()) {
        nodes.addObject().put("endpoint", e.toString()).put("state", "removed");
      }
    }
    body.put("logTail", node.logTail());
    Long globalTail = node.globalTail();
    if (globalTail == null) {
      body.putNull("globalTail");
    } else {
      body.put("globalTail", globalTail);
    }
    io.vcorfu.protocol.proto.StreamTailResponse tails = node.streamTails();
    if (tails != null) {
      ObjectNode streams = body.putObject("streams");
      streams.put("count", tails.getTailsCount());
      com.fasterxml.jackson.databind.node.ArrayNode shown = streams.putArray("shown");
      Map<io.vcorfu.protocol.StreamId, String> named = names.names();
      for (io.vcorfu.protocol.proto.StreamTailEntry t :
          tails.getTailsList().subList(0, Math.min(STREAMS_SHOWN, tails.getTailsCount()))) {
        io.vcorfu.protocol.StreamId id = io.vcorfu.protocol.StreamId.fromMsg(t.getStream());
        ObjectNode n = shown.addObject().put("stream", id.toString());
        if (named.containsKey(id)) {
          n.put("name", named.get(id));
        }
        n.put("tail", t.getTail()).put("trimMark", t.getTrimMark());
      }
    }
    com.fasterxml.jackson.databind.node.ArrayNode changes = body.putArray("recentChanges");
    for (AdoptedLayouts.Change c : node.recentChanges()) {
      changes
          .addObject()
          .put("at", c.at().toString())
          .put("epoch", c.epoch())
          .put("what", c.what());
    }
    io.vcorfu.protocol.proto.StorageSpace space = p.getSpace();
    ObjectNode storage = body.putObject("storage");
    storage.put("fileBytes", space.getFileBytes());
    storage.put("liveBytes", space.getLiveBytes());
    storage.put("segments", space.getSegments());
    storage.put("logTrimMark", space.getLogTrimMark());
    storage.put(
        "logNeededFrom",
        space.getLogNeededFrom() == Long.MAX_VALUE ? -1 : space.getLogNeededFrom());
    storage.put("streams", space.getStreams());
    storage.put("trimmedStreams", space.getTrimmedStreams());
    storage.put("segmentsCompacted", space.getSegmentsCompacted());
    storage.put("compactionCopiedBytes", space.getCompactionCopiedBytes());
    storage.put("compactionReclaimedBytes", space.getCompactionReclaimedBytes());
    storage.put("compacting", space.getCompacting());
    storage.put("freeDiskBytes", space.getFreeDiskBytes());
    storage.put("diskAlarm", space.getDiskAlarm());
    RebuildProgress r = p.getRebuild();
    if (r.getSinceEpoch() > 0) {
      ObjectNode rebuild = body.putObject("rebuild");
      rebuild.put("done", r.getDone());
      rebuild.put("entriesCopied", r.getEntriesCopied());
      rebuild.put("bytesCopied", r.getBytesCopied());
      rebuild.put("entriesLeft", r.getEntriesLeft());
      rebuild.put("bytesPerSecond", r.getBytesPerSecond());
      rebuild.put("secondsLeft", r.getSecondsLeft());
    }
    return new HttpAccess.Reply(200, "application/json", body.toString());
  }

  private HttpAccess.Reply page() throws IOException {
    try (InputStream in = NodeHttp.class.getResourceAsStream("/vcorfu-status.html")) {
      String html =
          in == null
              ? "status page missing"
              : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new HttpAccess.Reply(200, "text/html; charset=utf-8", html);
    }
  }

  @Override
  public void close() {
    node.observeRequests(null);
    node.observeForces(null);
    server.close();
    names.close();
    for (AutoCloseable b : binders) {
      try {
        b.close();
      } catch (Exception ignored) {
        // closing
      }
    }
    registry.close();
  }
}
