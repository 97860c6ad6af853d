package io.vcorfu.benchmarks;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An etcd cluster as a {@link FailoverTarget}: one jetcd client over every member's URL, putting
 * one new key per write. Its roles: {@code leader}, the member every reachable member names as
 * leader; {@code follower}, the first other member.
 *
 * <p>The client is tuned for a fast failover, as an application that cares would tune it: a put
 * unanswered after {@code requestTimeoutMs} is abandoned and the next one is sent (a put that a
 * follower forwarded to a leader that died is otherwise answered only by etcd's own request
 * timeout, about 7 s), and jetcd's own retries of a failed request start after 10 ms instead of its
 * default 500 ms.
 */
final class EtcdFailoverTarget implements FailoverTarget {
  private final List<String> endpoints;
  private final List<String> urls;
  private final Client client;
  private final KV kv;
  private final ByteSequence value;
  private final long requestTimeoutMs;

  EtcdFailoverTarget(String endpointList, int size, long requestTimeoutMs) {
    this.endpoints =
        Arrays.stream(endpointList.split(","))
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .toList();
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("no etcd endpoint given in '" + endpointList + "'");
    }
    this.urls = endpoints.stream().map(e -> e.contains("://") ? e : "http://" + e).toList();
    this.requestTimeoutMs = requestTimeoutMs;
    byte[] bytes = new byte[size];
    Arrays.fill(bytes, (byte) 'x');
    this.value = ByteSequence.from(bytes);
    this.client =
        Client.builder()
            .endpoints(urls.toArray(String[]::new))
            .retryDelay(10)
            .retryMaxDelay(100)
            .retryChronoUnit(ChronoUnit.MILLIS)
            .build();
    this.kv = client.getKVClient();
  }

  @Override
  public void write(long seq) throws Exception {
    CompletableFuture<?> put =
        kv.put(ByteSequence.from("failover/" + seq, StandardCharsets.UTF_8), value);
    try {
      put.get(requestTimeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      put.cancel(true);
      throw e;
    }
  }

  @Override
  public int victim(String role) throws Exception {
    if (!roles().contains(role)) {
      throw new IllegalArgumentException(
          "etcd has no role '" + role + "'; the roles are " + roles());
    }
    long leader = 0;
    List<Long> members = new ArrayList<>();
    for (String url : urls) {
      StatusResponse status =
          client.getMaintenanceClient().statusMember(url).get(5, TimeUnit.SECONDS);
      members.add(status.getHeader().getMemberId());
      if (leader == 0) {
        leader = status.getLeader();
      } else if (status.getLeader() != leader) {
        throw new IllegalStateException("the members disagree on the leader; try again later");
      }
    }
    for (int i = 0; i < members.size(); i++) {
      boolean isLeader = members.get(i) == leader;
      if (isLeader == role.equals("leader")) {
        return i;
      }
    }
    throw new IllegalStateException("no member is the " + role + " (leader id " + leader + ")");
  }

  @Override
  public List<String> endpoints() {
    return endpoints;
  }

  @Override
  public List<String> roles() {
    return List.of("leader", "follower");
  }

  @Override
  public void close() {
    client.close();
  }
}
