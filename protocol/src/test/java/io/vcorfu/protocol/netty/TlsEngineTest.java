package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

/**
 * Which TLS engine runs: OpenSSL's where its library loads (it does on the Linux x86-64 machines
 * the build runs on, from the netty-tcnative dependency), the JDK's otherwise or when asked for.
 * The build runs the TLS classes once on each (see the module's pom).
 */
class TlsEngineTest {
  @Test
  void openSslLoadsOnLinuxX8664AndIsTheDefaultThere() {
    boolean linuxX8664 =
        System.getProperty("os.name").startsWith("Linux")
            && System.getProperty("os.arch").equals("amd64");
    if (linuxX8664) {
      assertThat(OpenSsl.isAvailable()).as(String.valueOf(OpenSsl.unavailabilityCause())).isTrue();
    }
    assertThat(TlsContexts.engine(""))
        .isEqualTo(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
  }

  @Test
  void thePropertyPicksTheEngineInUse() {
    String wanted = System.getProperty(TlsContexts.ENGINE_PROPERTY, "");
    String expected = wanted.isEmpty() ? (OpenSsl.isAvailable() ? "openssl" : "jdk") : wanted;
    assertThat(TlsContexts.engineName()).isEqualTo(expected);
  }

  @Test
  void anUnknownEngineIsRefusedWithALineSayingWhatToUse() {
    assertThat(TlsContexts.engine("jdk")).isEqualTo(SslProvider.JDK);
    assertThatThrownBy(() -> TlsContexts.engine("gnutls"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("-Dvcorfu.tls.engine=gnutls names no TLS engine: use openssl or jdk");
  }
}
