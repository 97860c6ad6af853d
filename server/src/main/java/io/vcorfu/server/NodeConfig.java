package io.vcorfu.server;

import io.vcorfu.protocol.Endpoint;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How to run one node.
 *
 * @param listen where to serve; port 0 picks a free port (single-node layouts then name the real one)
 * @param dataDir where durable state lives; null keeps everything in memory
 * @param layoutFile a layout to adopt; null = a single node hosting every role
 * @param fsyncInterval null = group-committed fsync before every acknowledgement (the default);
 *     otherwise acknowledge after the write and fsync at this interval
 */
public record NodeConfig(Endpoint listen, Path dataDir, Path layoutFile, Duration fsyncInterval) {

  public static NodeConfig inMemory(Endpoint listen) {
    return new NodeConfig(listen, null, null, null);
  }

  public static NodeConfig durable(Endpoint listen, Path dataDir) {
    return new NodeConfig(listen, dataDir, null, null);
  }

  public NodeConfig withLayout(Path file) {
    return new NodeConfig(listen, dataDir, file, fsyncInterval);
  }

  public boolean durable() {
    return dataDir != null;
  }
}
