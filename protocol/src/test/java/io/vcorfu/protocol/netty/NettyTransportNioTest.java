package io.vcorfu.protocol.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

/**
 * Every transport test again on the portable JDK NIO sockets (what a non-Linux machine, or {@code
 * -Dvcorfu.netty.nio=true}, runs on).
 */
class NettyTransportNioTest extends NettyTransportTest {
  @Override
  IoFlavor flavor() {
    return IoFlavor.NIO;
  }

  @Test
  void linuxRunsOnNativeEpollUnlessNioIsForced() {
    boolean forced = Boolean.getBoolean("vcorfu.netty.nio");
    assertThat(IoFlavor.CURRENT)
        .isEqualTo(Epoll.isAvailable() && !forced ? IoFlavor.EPOLL : IoFlavor.NIO);
  }
}
