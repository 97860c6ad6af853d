package io.vcorfu.benchmarks;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A vcorfu cluster as a {@link FailoverTarget}: one client ({@link ClusterStreamLog}, one
 * connection per node) appending to one stream. Its roles: {@code sequencer}, the layout's
 * sequencer; {@code replica}, the first other node of the layout (with three nodes and R = 3 a log
 * and stream replica of every chain).
 */
final class VcorfuFailoverTarget implements FailoverTarget {
  private static final StreamId STREAM = StreamId.of("failover");

  private final List<Endpoint> endpoints;
  private final NettyTransport transport;
  private final ClusterStreamLog log;
  private final byte[] value;

  VcorfuFailoverTarget(String endpointList, int size, StreamLogOptions options) {
    this.endpoints = Endpoint.parseList(endpointList);
    this.value = new byte[size];
    java.util.Arrays.fill(value, (byte) 'x');
    this.transport = new NettyTransport();
    try {
      this.log = ClusterStreamLog.connect(transport, endpoints, options);
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
  }

  @Override
  public void write(long seq) {
    log.append(List.of(STREAM), value).join();
  }

  @Override
  public int victim(String role) throws Exception {
    Layout layout = log.layout().refresh().get(10, TimeUnit.SECONDS);
    Endpoint sequencer = layout.sequencer();
    Endpoint chosen =
        switch (role) {
          case "sequencer" -> sequencer;
          case "replica" ->
              layout.allServers().stream()
                  .filter(e -> !e.equals(sequencer))
                  .findFirst()
                  .orElseThrow(
                      () -> new IllegalStateException("the layout has no node but the sequencer"));
          default ->
              throw new IllegalArgumentException(
                  "vcorfu has no role '" + role + "'; the roles are " + roles());
        };
    int index = endpoints.indexOf(chosen);
    if (index < 0) {
      throw new IllegalStateException(
          "the " + role + " " + chosen + " is not among --endpoint " + endpoints);
    }
    return index;
  }

  @Override
  public List<String> endpoints() {
    return endpoints.stream().map(Endpoint::toString).toList();
  }

  @Override
  public List<String> roles() {
    return List.of("sequencer", "replica");
  }

  @Override
  public void close() {
    try {
      log.close();
    } finally {
      transport.close();
    }
  }
}
