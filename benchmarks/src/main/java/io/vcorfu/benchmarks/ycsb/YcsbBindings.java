package io.vcorfu.benchmarks.ycsb;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The YCSB bindings {@code vcorfu bench ycsb --db NAME} knows: each name maps to the {@code
 * site.ycsb.DB} class YCSB instantiates (once per client thread) and to how {@code --endpoint
 * HOST:PORT} becomes that binding's properties (vcorfu and etcd also take several, separated by
 * commas). Adding a binding is one entry in {@link #BINDINGS}.
 */
public final class YcsbBindings {
  /**
   * One binding.
   *
   * @param name the {@code --db} name
   * @param dbClass the fully qualified {@code site.ycsb.DB} subclass, public with a public
   *     no-argument constructor
   * @param endpointProperties YCSB properties pointing the binding at an endpoint given as
   *     HOST:PORT
   */
  public record Binding(
      String name, String dbClass, Function<String, Map<String, String>> endpointProperties) {}

  private static final Map<String, Binding> BINDINGS =
      register(
          new Binding(
              "vcorfu", VcorfuYcsbClient.class.getName(), VcorfuYcsbClient::endpointProperties),
          new Binding("redis", RedisYcsbClient.class.getName(), YcsbBindings::redisEndpoint),
          new Binding("etcd", EtcdYcsbClient.class.getName(), YcsbBindings::etcdEndpoint));

  private YcsbBindings() {}

  /**
   * The binding called {@code name}.
   *
   * @throws IllegalArgumentException naming the known bindings
   */
  public static Binding resolve(String name) {
    Binding binding = BINDINGS.get(name);
    if (binding != null) {
      return binding;
    }
    throw new IllegalArgumentException(
        "There is no YCSB binding called '"
            + name
            + "'; the bindings are "
            + String.join(", ", names())
            + ".");
  }

  /** The names of the bindings that can run, in registration order. */
  public static Set<String> names() {
    return BINDINGS.keySet();
  }

  private static Map<String, Binding> register(Binding... bindings) {
    Map<String, Binding> out = new LinkedHashMap<>();
    for (Binding b : bindings) {
      out.put(b.name(), b);
    }
    return out;
  }

  private static Map<String, String> redisEndpoint(String endpoint) {
    HostPort hp = HostPort.parse(endpoint);
    Map<String, String> props = new LinkedHashMap<>();
    props.put(RedisYcsbClient.HOST_PROPERTY, hp.host());
    props.put(RedisYcsbClient.PORT_PROPERTY, Integer.toString(hp.port()));
    return props;
  }

  /** One member {@code HOST:PORT}, or several separated by commas: one jetcd client over all. */
  private static Map<String, String> etcdEndpoint(String endpoint) {
    List<String> urls = new ArrayList<>();
    for (String member : endpoint.split(",", -1)) {
      String m = member.strip();
      if (m.startsWith("https://") || m.startsWith("http://")) {
        urls.add(m); // a URL as etcd takes it (https with TLS)
        continue;
      }
      HostPort hp = HostPort.parse(m);
      urls.add("http://" + hp.host() + ":" + hp.port());
    }
    return Map.of(EtcdYcsbClient.ENDPOINTS_PROPERTY, String.join(",", urls));
  }

  /** A HOST:PORT pair; IPv6 hosts are written in brackets. */
  record HostPort(String host, int port) {
    static HostPort parse(String endpoint) {
      int colon = endpoint.lastIndexOf(':');
      if (colon <= 0 || colon == endpoint.length() - 1) {
        throw new IllegalArgumentException(
            "The endpoint '" + endpoint + "' is not of the form HOST:PORT.");
      }
      int port;
      try {
        port = Integer.parseInt(endpoint.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "The endpoint '" + endpoint + "' has a port that is not a number.", e);
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(
            "The endpoint '" + endpoint + "' has a port outside 1..65535.");
      }
      return new HostPort(endpoint.substring(0, colon), port);
    }
  }
}
