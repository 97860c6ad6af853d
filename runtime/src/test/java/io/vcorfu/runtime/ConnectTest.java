package io.vcorfu.runtime;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.TransportException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** {@link VCorfuRuntime#connect(String)} takes one node or a comma-separated list of nodes. */
class ConnectTest {

  @Test
  void aMalformedListIsRefusedNamingTheBadEndpoint() {
    assertThatThrownBy(() -> VCorfuRuntime.connect("127.0.0.1:9000,,127.0.0.1:9001"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("endpoint 2 of '127.0.0.1:9000,,127.0.0.1:9001' is empty");
    assertThatThrownBy(() -> VCorfuRuntime.connect("127.0.0.1:9000,localhost"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("endpoint 2 of")
        .hasMessageContaining("host:port");
  }

  @Test
  void everyNodeOfTheListIsAskedBeforeConnectingFails() throws IOException {
    String a = "127.0.0.1:" + closedPort();
    String b = "127.0.0.1:" + closedPort();
    assertThatThrownBy(() -> VCorfuRuntime.connect(a + "," + b))
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("no seed answered")
        .hasMessageContaining(a)
        .hasMessageContaining(b);
  }

  /** A port nothing listens on (it was free a moment ago). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
