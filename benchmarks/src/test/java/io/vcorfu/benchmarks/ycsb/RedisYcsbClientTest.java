package io.vcorfu.benchmarks.ycsb;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.DB;
import site.ycsb.DBException;

/**
 * {@link RedisYcsbClient} against a redis-server this class starts (skipped if none is installed).
 */
class RedisYcsbClientTest extends YcsbBindingContract {
  @TempDir static Path dir;
  private static PeerServer server;

  @BeforeAll
  static void startRedis() throws Exception {
    PeerServer.assumeInstalled(PeerServer.REDIS_SERVER);
    server = PeerServer.redis(dir);
  }

  @AfterAll
  static void stopRedis() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  Properties serverProperties() {
    Properties p = new Properties();
    p.setProperty(RedisYcsbClient.HOST_PROPERTY, "127.0.0.1");
    p.setProperty(RedisYcsbClient.PORT_PROPERTY, Integer.toString(server.port()));
    return p;
  }

  @Override
  DB newBinding() {
    return new RedisYcsbClient();
  }

  @Test
  void initFailsWithTheAddressWhenNoServerListens() throws Exception {
    RedisYcsbClient db = new RedisYcsbClient();
    Properties p = new Properties();
    p.setProperty(RedisYcsbClient.PORT_PROPERTY, Integer.toString(PeerServer.freePort()));
    p.setProperty(RedisYcsbClient.TIMEOUT_PROPERTY, "1000");
    db.setProperties(p);
    assertThatThrownBy(db::init)
        .isInstanceOf(DBException.class)
        .hasMessageContaining("Could not reach Redis at 127.0.0.1:");
  }
}
