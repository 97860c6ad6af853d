package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import site.ycsb.DB;

class YcsbBindingsTest {
  @Test
  void unknownBindingNamesTheKnownOnes() {
    assertThatThrownBy(() -> YcsbBindings.resolve("mongodb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "There is no YCSB binding called 'mongodb'; the bindings are vcorfu, redis, etcd.");
  }

  @Test
  void everyBindingNamesALoadableYcsbDbWithANoArgumentConstructor() throws Exception {
    for (String name : YcsbBindings.names()) {
      Class<?> c = Class.forName(YcsbBindings.resolve(name).dbClass());
      assertThat(DB.class).isAssignableFrom(c);
      assertThat(c.getConstructor().newInstance()).isInstanceOf(DB.class);
    }
  }

  @Test
  void endpointBecomesTheBindingsHostAndPortProperties() {
    assertThat(YcsbBindings.resolve("redis").endpointProperties().apply("10.1.2.3:7000"))
        .isEqualTo(Map.of("redis.host", "10.1.2.3", "redis.port", "7000"));
    assertThat(YcsbBindings.resolve("etcd").endpointProperties().apply("127.0.0.1:2389"))
        .isEqualTo(Map.of("etcd.endpoints", "http://127.0.0.1:2389"));
    assertThat(
            YcsbBindings.resolve("etcd")
                .endpointProperties()
                .apply("127.0.0.1:2389, 127.0.0.1:2391,127.0.0.1:2393"))
        .isEqualTo(
            Map.of(
                "etcd.endpoints",
                "http://127.0.0.1:2389,http://127.0.0.1:2391,http://127.0.0.1:2393"));
    assertThat(YcsbBindings.resolve("vcorfu").endpointProperties().apply("127.0.0.1:9000"))
        .isEqualTo(Map.of("vcorfu.endpoint", "127.0.0.1:9000"));
  }

  @Test
  void malformedEndpointsAreRejected() {
    var redis = YcsbBindings.resolve("redis").endpointProperties();
    assertThatThrownBy(() -> redis.apply("localhost")).hasMessageContaining("HOST:PORT");
    assertThatThrownBy(() -> redis.apply("localhost:http")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> redis.apply("localhost:70000"))
        .hasMessageContaining("outside 1..65535");
    var etcd = YcsbBindings.resolve("etcd").endpointProperties();
    assertThatThrownBy(() -> etcd.apply("127.0.0.1:2389,")).hasMessageContaining("HOST:PORT");
  }
}
