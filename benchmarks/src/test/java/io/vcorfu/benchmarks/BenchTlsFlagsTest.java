package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bench modes take the clients' TLS flags, checked as every client command checks them. */
class BenchTlsFlagsTest {
  @RegisterExtension static final BenchNode NODE = new BenchNode();

  @Test
  void aClientCertificateWithoutTheCaIsAUsageErrorBeforeAnyLoad() {
    BenchNode.Printed p =
        NODE.runPrinting(
            new AppendBench(), "--tls-cert client.pem --tls-key client.key --duration 1", 2);
    assertThat(String.join("\n", p.err())).contains("give --tls-ca FILE");
    assertThat(p.out()).noneMatch(l -> l.startsWith("append threads"));
  }
}
