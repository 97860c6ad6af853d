package io.vcorfu.benchmarks.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Redis. A record of table T and key K is the hash {@code T:K} (one hash field per
 * YCSB field); every record key K is also a member of the sorted set {@code T#index} with score 0,
 * so a scan is {@code ZRANGEBYLEX T#index [start + LIMIT 0 n} followed by one pipelined read per
 * key.
 *
 * <p>Insert and update write the hash fields and the index member in one MULTI/EXEC transaction, so
 * a hash is never visible without its index entry; an update merges the given fields into the
 * record (Redis hashes keep the other fields). Delete removes both in one transaction. A scan that
 * meets a key whose hash was deleted after the index read skips it.
 *
 * <p>Properties: {@code redis.host} (default 127.0.0.1), {@code redis.port} (default 6390), {@code
 * redis.timeout.ms} (connect and socket timeout, default 10000).
 *
 * <p>Thread-safety: YCSB creates one instance per client thread; each instance owns a pool holding
 * one connection, which it re-opens if the server closes it. Failed commands are not retried here:
 * the operation reports {@link Status#ERROR} and YCSB counts it.
 */
public final class RedisYcsbClient extends DB {
  public static final String HOST_PROPERTY = "redis.host";
  public static final String PORT_PROPERTY = "redis.port";
  public static final String TIMEOUT_PROPERTY = "redis.timeout.ms";
  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 6390;

  private JedisPooled redis;

  @Override
  public void init() throws DBException {
    String host = getProperties().getProperty(HOST_PROPERTY, DEFAULT_HOST);
    int port = YcsbProperties.intProperty(getProperties(), PORT_PROPERTY, DEFAULT_PORT);
    int timeoutMs = YcsbProperties.intProperty(getProperties(), TIMEOUT_PROPERTY, 10_000);
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(1);
    pool.setMaxIdle(1);
    pool.setMinIdle(0);
    pool.setJmxEnabled(false);
    try {
      javax.net.ssl.SSLContext tls = YcsbTls.context(getProperties(), "redis");
      if (tls == null) {
        redis = new JedisPooled(pool, host, port, timeoutMs);
      } else {
        redis =
            new JedisPooled(
                pool,
                new HostAndPort(host, port),
                DefaultJedisClientConfig.builder()
                    .ssl(true)
                    .sslSocketFactory(tls.getSocketFactory())
                    .connectionTimeoutMillis(timeoutMs)
                    .socketTimeoutMillis(timeoutMs)
                    .build());
      }
      redis.ping();
    } catch (JedisException e) {
      if (redis != null) {
        redis.close();
      }
      throw new DBException(
          "Could not reach Redis at " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void cleanup() {
    if (redis != null) {
      redis.close();
    }
  }

  @Override
  public Status read(
      String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      return readInto(recordKey(table, key), fields, result) ? Status.OK : Status.NOT_FOUND;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(
      String table,
      String startkey,
      int recordcount,
      Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    try {
      List<String> keys = redis.zrangeByLex(indexKey(table), "[" + startkey, "+", 0, recordcount);
      List<Response<Map<byte[], byte[]>>> whole = new ArrayList<>();
      List<Response<List<byte[]>>> selected = new ArrayList<>();
      try (AbstractPipeline pipeline = redis.pipelined()) {
        for (String key : keys) {
          if (fields == null) {
            whole.add(pipeline.hgetAll(recordKey(table, key)));
          } else {
            selected.add(pipeline.hmget(recordKey(table, key), names(fields)));
          }
        }
        pipeline.sync();
      }
      for (Response<Map<byte[], byte[]>> reply : whole) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        if (allFields(reply.get(), row)) {
          result.add(row);
        }
      }
      for (Response<List<byte[]>> reply : selected) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        if (selectedFields(fields, reply.get(), row)) {
          result.add(row);
        }
      }
      return Status.OK;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return write(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    return write(table, key, values);
  }

  @Override
  public Status delete(String table, String key) {
    try (AbstractTransaction tx = redis.multi()) {
      Response<Long> removed = tx.del(recordKey(table, key));
      tx.zrem(indexKey(table), key);
      tx.exec();
      return removed.get() > 0 ? Status.OK : Status.NOT_FOUND;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  private Status write(String table, String key, Map<String, ByteIterator> values) {
    Map<byte[], byte[]> hash = new HashMap<>();
    for (Map.Entry<String, ByteIterator> field : values.entrySet()) {
      hash.put(utf8(field.getKey()), field.getValue().toArray());
    }
    try (AbstractTransaction tx = redis.multi()) {
      tx.hset(recordKey(table, key), hash);
      tx.zadd(indexKey(table), 0, key);
      tx.exec();
      return Status.OK;
    } catch (JedisException e) {
      return Status.ERROR;
    }
  }

  private boolean readInto(byte[] record, Set<String> fields, Map<String, ByteIterator> result) {
    return fields == null
        ? allFields(redis.hgetAll(record), result)
        : selectedFields(fields, redis.hmget(record, names(fields)), result);
  }

  /** Copies an HGETALL reply into {@code row}; false if the record does not exist. */
  private static boolean allFields(Map<byte[], byte[]> reply, Map<String, ByteIterator> row) {
    for (Map.Entry<byte[], byte[]> field : reply.entrySet()) {
      row.put(
          new String(field.getKey(), StandardCharsets.UTF_8),
          new ByteArrayByteIterator(field.getValue()));
    }
    return !reply.isEmpty();
  }

  /**
   * Copies an HMGET reply (one value or null per name of {@code fields}, in iteration order) into
   * {@code row}; false if none of the fields exists, which is how a missing record answers.
   */
  private static boolean selectedFields(
      Set<String> fields, List<byte[]> reply, Map<String, ByteIterator> row) {
    int i = 0;
    boolean any = false;
    for (String name : fields) {
      byte[] value = reply.get(i++);
      if (value != null) {
        row.put(name, new ByteArrayByteIterator(value));
        any = true;
      }
    }
    return any;
  }

  private static byte[][] names(Set<String> fields) {
    byte[][] out = new byte[fields.size()][];
    int i = 0;
    for (String name : fields) {
      out[i++] = utf8(name);
    }
    return out;
  }

  private static byte[] recordKey(String table, String key) {
    return utf8(table + ":" + key);
  }

  private static String indexKey(String table) {
    return table + "#index";
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
