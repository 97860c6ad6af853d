package io.vcorfu.benchmarks.ycsb;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for etcd (v3 API through jetcd). A record of table T and key K is the single etcd
 * key {@code T/K} whose value is the whole field map in {@link EtcdRecordCodec}'s encoding.
 *
 * <ul>
 *   <li>read: one get, then the requested fields are picked from the decoded map;
 *   <li>scan: one range get from {@code T/start} to the end of the table's key space, sorted by key
 *       ascending, limited to the requested count;
 *   <li>insert: one put of the full record;
 *   <li>update: read-modify-write. YCSB updates carry a subset of the fields (one field by
 *       default), so the record is read, the new fields merged into it, and the result written by a
 *       transaction conditional on the record's mod revision being unchanged; on a conflict the
 *       whole cycle is retried, as an application's optimistic loop is, until it succeeds or {@code
 *       etcd.timeout.ms} has passed since the first attempt (then ERROR: many threads on a few hot
 *       keys lose the race many times in a row). Updating a missing record reports NOT_FOUND. This
 *       costs two round trips but never loses another client's concurrent field update;
 *   <li>delete: one delete; NOT_FOUND if nothing was deleted.
 * </ul>
 *
 * <p>Properties: {@code etcd.endpoints} (comma-separated URLs, default http://127.0.0.1:2389),
 * {@code etcd.timeout.ms} (per request, default 10000).
 *
 * <p>Thread-safety: YCSB creates one instance per client thread. The instances of one JVM that name
 * the same endpoints share one jetcd client (one gRPC channel, whose HTTP/2 connection carries
 * every thread's requests concurrently); it is opened by the first {@link #init} and closed by the
 * last {@link #cleanup}. jetcd retries requests that failed with transient gRPC errors; a request
 * still unanswered after the timeout reports {@link Status#ERROR}.
 */
public final class EtcdYcsbClient extends DB {
  public static final String ENDPOINTS_PROPERTY = "etcd.endpoints";
  public static final String TIMEOUT_PROPERTY = "etcd.timeout.ms";
  public static final String DEFAULT_ENDPOINTS = "http://127.0.0.1:2389";

  /** Open clients by endpoints string, each with its number of users. Guarded by itself. */
  private static final Map<String, SharedClient> SHARED = new HashMap<>();

  private String endpoints;
  private SharedClient shared;
  private KV kv;
  private long timeoutMs;

  @Override
  public void init() throws DBException {
    endpoints = getProperties().getProperty(ENDPOINTS_PROPERTY, DEFAULT_ENDPOINTS);
    timeoutMs = YcsbProperties.intProperty(getProperties(), TIMEOUT_PROPERTY, 10_000);
    String[] urls =
        Arrays.stream(endpoints.split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .toArray(String[]::new);
    if (urls.length == 0) {
      throw new DBException("The property " + ENDPOINTS_PROPERTY + " names no etcd endpoint.");
    }
    io.vcorfu.protocol.TlsOptions tls = YcsbTls.options(getProperties(), "etcd");
    synchronized (SHARED) {
      shared = SHARED.get(endpoints);
      if (shared == null) {
        io.etcd.jetcd.ClientBuilder builder = Client.builder().endpoints(urls);
        if (tls != null) {
          try {
            builder.sslContext(
                b -> {
                  b.trustManager(tls.ca().toFile());
                  if (tls.cert() != null) {
                    b.keyManager(tls.cert().toFile(), tls.key().toFile());
                  }
                });
          } catch (javax.net.ssl.SSLException e) {
            throw new DBException("etcd TLS: " + e.getMessage(), e);
          }
        }
        shared = new SharedClient(builder.build());
        SHARED.put(endpoints, shared);
      }
      shared.users++;
    }
    kv = shared.client.getKVClient();
    try {
      await(kv.get(bytes("\0")));
    } catch (EtcdFailure e) {
      cleanup();
      throw new DBException("Could not reach etcd at " + endpoints + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void cleanup() {
    if (shared == null) {
      return;
    }
    synchronized (SHARED) {
      if (--shared.users == 0) {
        SHARED.remove(endpoints);
        shared.client.close();
      }
    }
    shared = null;
  }

  @Override
  public Status read(
      String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      List<KeyValue> kvs = await(kv.get(recordKey(table, key))).getKvs();
      if (kvs.isEmpty()) {
        return Status.NOT_FOUND;
      }
      copyFields(EtcdRecordCodec.decode(kvs.get(0).getValue().getBytes()), fields, result);
      return Status.OK;
    } catch (EtcdFailure | IllegalArgumentException e) {
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
    GetOption range =
        GetOption.builder()
            .withRange(tableEnd(table))
            .withLimit(recordcount)
            .withSortField(GetOption.SortTarget.KEY)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .build();
    try {
      for (KeyValue record : await(kv.get(recordKey(table, startkey), range)).getKvs()) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        copyFields(EtcdRecordCodec.decode(record.getValue().getBytes()), fields, row);
        result.add(row);
      }
      return Status.OK;
    } catch (EtcdFailure | IllegalArgumentException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    ByteSequence recordKey = recordKey(table, key);
    Map<String, byte[]> changes = toBytes(values);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    try {
      do {
        GetResponse current = await(kv.get(recordKey));
        if (current.getKvs().isEmpty()) {
          return Status.NOT_FOUND;
        }
        KeyValue record = current.getKvs().get(0);
        LinkedHashMap<String, byte[]> merged = EtcdRecordCodec.decode(record.getValue().getBytes());
        merged.putAll(changes);
        boolean written =
            await(
                    kv.txn()
                        .If(
                            new Cmp(
                                recordKey,
                                Cmp.Op.EQUAL,
                                CmpTarget.modRevision(record.getModRevision())))
                        .Then(
                            Op.put(
                                recordKey,
                                ByteSequence.from(EtcdRecordCodec.encode(merged)),
                                PutOption.DEFAULT))
                        .commit())
                .isSucceeded();
        if (written) {
          return Status.OK;
        }
      } while (System.nanoTime() - deadline < 0);
      return Status.ERROR;
    } catch (EtcdFailure | IllegalArgumentException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      await(
          kv.put(
              recordKey(table, key), ByteSequence.from(EtcdRecordCodec.encode(toBytes(values)))));
      return Status.OK;
    } catch (EtcdFailure e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      return await(kv.delete(recordKey(table, key))).getDeleted() > 0
          ? Status.OK
          : Status.NOT_FOUND;
    } catch (EtcdFailure e) {
      return Status.ERROR;
    }
  }

  private <T> T await(CompletableFuture<T> future) throws EtcdFailure {
    try {
      return future.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new EtcdFailure("interrupted while waiting for etcd", e);
    } catch (ExecutionException e) {
      throw new EtcdFailure(String.valueOf(e.getCause().getMessage()), e.getCause());
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new EtcdFailure("etcd did not answer within " + timeoutMs + " ms", e);
    }
  }

  private static void copyFields(
      Map<String, byte[]> record, Set<String> fields, Map<String, ByteIterator> out) {
    if (fields == null) {
      record.forEach((name, value) -> out.put(name, new ByteArrayByteIterator(value)));
      return;
    }
    for (String name : fields) {
      byte[] value = record.get(name);
      if (value != null) {
        out.put(name, new ByteArrayByteIterator(value));
      }
    }
  }

  private static Map<String, byte[]> toBytes(Map<String, ByteIterator> values) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    values.forEach((name, value) -> out.put(name, value.toArray()));
    return out;
  }

  private static ByteSequence recordKey(String table, String key) {
    return bytes(table + "/" + key);
  }

  /** The first key after every {@code table/...} key: '0' is the character after '/'. */
  private static ByteSequence tableEnd(String table) {
    return bytes(table + "0");
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static final class SharedClient {
    final Client client;
    int users;

    SharedClient(Client client) {
      this.client = client;
    }
  }

  /** A request that failed, timed out or was interrupted. */
  private static final class EtcdFailure extends Exception {
    EtcdFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
