package io.vcorfu.protocol;

import java.time.Duration;

/** Client settings: request timeout, connect timeout and maximum frame size in bytes. */
public record ClientOptions(Duration requestTimeout, Duration connectTimeout, int maxFrameBytes) {

  /** Default maximum frame: 16 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

  public static ClientOptions defaults() {
    return new ClientOptions(Duration.ofSeconds(5), Duration.ofSeconds(2), DEFAULT_MAX_FRAME_BYTES);
  }

  public ClientOptions withRequestTimeout(Duration timeout) {
    return new ClientOptions(timeout, connectTimeout, maxFrameBytes);
  }
}
