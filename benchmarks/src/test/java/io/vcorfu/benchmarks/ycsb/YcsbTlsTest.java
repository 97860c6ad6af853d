package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.TlsOptions;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

/** The TLS properties of the YCSB bindings: off without a CA, and half-given files refused. */
class YcsbTlsTest {
  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  @Test
  void withoutACaTlsIsOffAndWithAllThreeFilesTheClientPresentsItsCertificate() throws Exception {
    assertThat(YcsbTls.options(props(), "etcd")).isNull();
    assertThat(YcsbTls.options(props("redis.tls.ca", "/x/ca.pem"), "etcd")).isNull();
    TlsOptions trusting = YcsbTls.options(props("etcd.tls.ca", "/x/ca.pem"), "etcd");
    assertThat(trusting.ca()).isEqualTo(Path.of("/x/ca.pem"));
    assertThat(trusting.cert()).isNull();
    TlsOptions full =
        YcsbTls.options(
            props(
                "vcorfu.tls.ca",
                "/x/ca.pem",
                "vcorfu.tls.cert",
                "/x/c.pem",
                "vcorfu.tls.key",
                "/x/c.key"),
            "vcorfu");
    assertThat(full.cert()).isEqualTo(Path.of("/x/c.pem"));
    assertThat(full.key()).isEqualTo(Path.of("/x/c.key"));
  }

  @Test
  void aCertificateWithoutItsKeyOrWithoutACaIsRefused() {
    assertThatThrownBy(() -> YcsbTls.options(props("redis.tls.cert", "/x/c.pem"), "redis"))
        .isInstanceOf(DBException.class)
        .hasMessage("redis.tls.cert and redis.tls.key need redis.tls.ca");
    assertThatThrownBy(
            () ->
                YcsbTls.options(
                    props("redis.tls.ca", "/x/ca.pem", "redis.tls.cert", "/x/c.pem"), "redis"))
        .isInstanceOf(DBException.class)
        .hasMessage("give redis.tls.cert and redis.tls.key together");
  }
}
