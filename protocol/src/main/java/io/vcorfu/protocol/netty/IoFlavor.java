package io.vcorfu.protocol.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.ThreadFactory;

/**
 * Which socket implementation the TCP transport runs on: Linux's native epoll transport where it
 * loads (fewer system calls and wake-ups per request than the JDK selector), else the portable JDK
 * NIO one. The system property {@code vcorfu.netty.nio=true} forces NIO.
 */
enum IoFlavor {
  EPOLL,
  NIO;

  /** The flavor this process uses, chosen once. */
  static final IoFlavor CURRENT =
      !Boolean.getBoolean("vcorfu.netty.nio") && Epoll.isAvailable() ? EPOLL : NIO;

  EventLoopGroup group(int threads, ThreadFactory factory) {
    return this == EPOLL
        ? new EpollEventLoopGroup(threads, factory)
        : new NioEventLoopGroup(threads, factory);
  }

  Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }
}
