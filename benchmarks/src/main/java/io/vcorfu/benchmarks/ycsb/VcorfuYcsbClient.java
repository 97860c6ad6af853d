package io.vcorfu.benchmarks.ycsb;

import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.SMRRangeMap;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.runtime.Retention;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for vcorfu. A table T is a {@link CSMRMap} named {@code ycsb/T} (record key -> the
 * record's field map) plus a sorted key index, an {@link SMRRangeMap} named {@code ycsb/T#index},
 * which serves scans.
 *
 * <ul>
 *   <li>read: one {@code get} on the key's bucket (a local view: a tail check, then any new updates
 *       of that bucket played locally);
 *   <li>scan: the first {@code n} keys from the start key in the index, then one {@code get} each;
 *       keys whose record was deleted meanwhile are skipped;
 *   <li>insert: the record by {@code fastPut} and the key into the index, both blind writes in one
 *       transaction, so they land in one log entry (a transaction with no reads never aborts);
 *   <li>update: by default ({@code vcorfu.update=fields}) only the given fields are written, by
 *       {@link CSMRMap#fastUpdateFields}: one blind write carrying those fields, no read;
 *       concurrent updates of different fields of one record all stay; an update of a missing
 *       record creates nothing and still answers OK (it read nothing to know). With {@code
 *       vcorfu.update=fastput} the record is read, the fields merged in and the whole record
 *       written by {@code fastPut} (NOT_FOUND for a missing record, but two clients updating
 *       different fields of one record at the same time can lose one of the updates); with {@code
 *       vcorfu.update=transaction} the read and the write run in one transaction that aborts (and
 *       is retried) when the record changed in between;
 *   <li>delete: the record and its index key removed in one transaction.
 * </ul>
 *
 * <p>Properties: {@code vcorfu.endpoint} (HOST:PORT of any node, or several separated by commas,
 * asked in order until one answers; default 127.0.0.1:9000), {@code vcorfu.buckets} (bucket count
 * when the table's map is created, default 100; an existing map keeps its own), {@code
 * vcorfu.views} ({@code local}, the default, or {@code remote}: the buckets are materialized on the
 * nodes hosting their streams), {@code vcorfu.update} (see above), {@code vcorfu.read-lease-ms}
 * (the runtime's read lease, default 1000; 0 = none): with a lease, a local-view read of a bucket
 * nobody else wrote since needs no request at all and is still linearizable (see {@code
 * StreamLogOptions.readLease}), {@code vcorfu.retained-history-bytes} (the runtime's {@code
 * RuntimeOptions.retainedHistoryBytes}; default: the runtime's default), {@code
 * vcorfu.history-budget-bytes} (the history budget of the runtime's retention, {@code
 * Retention.historyBudgetBytes}: 0 checkpoints each bucket as soon as it is due; default: the
 * runtime's default), {@code vcorfu.connections} (the client's connections to each node, {@code
 * ClientOptions.connectionsPerNode}, 1 to 64; default: one per processor, so that the threads'
 * calls and answers use every I/O thread on both sides).
 *
 * <p>Thread-safety: YCSB creates one instance per client thread; the instances of one JVM share one
 * runtime per endpoint (so one set of local views), opened by the first {@link #init} and closed by
 * the last {@link #cleanup}.
 */
public final class VcorfuYcsbClient extends DB {
  public static final String ENDPOINT_PROPERTY = "vcorfu.endpoint";
  public static final String BUCKETS_PROPERTY = "vcorfu.buckets";
  public static final String VIEWS_PROPERTY = "vcorfu.views";
  public static final String UPDATE_PROPERTY = "vcorfu.update";
  public static final String LEASE_PROPERTY = "vcorfu.read-lease-ms";
  public static final String HISTORY_PROPERTY = "vcorfu.retained-history-bytes";
  public static final String BUDGET_PROPERTY = "vcorfu.history-budget-bytes";
  public static final String CONNECTIONS_PROPERTY = "vcorfu.connections";

  /** One connection per node for each of the client's I/O threads (one per processor). */
  public static final int DEFAULT_CONNECTIONS =
      Math.min(ClientOptions.MAX_CONNECTIONS_PER_NODE, Runtime.getRuntime().availableProcessors());

  public static final int DEFAULT_LEASE_MS = 1000;
  public static final String DEFAULT_ENDPOINT = "127.0.0.1:9000";
  public static final int DEFAULT_BUCKETS = 100;

  /** One runtime per endpoint per JVM, shared by every client thread, with its tables. */
  private static final class Shared {
    final VCorfuRuntime rt;
    final Map<String, Table> tables = new ConcurrentHashMap<>();
    int users;

    Shared(VCorfuRuntime rt) {
      this.rt = rt;
    }
  }

  private record Table(
      CSMRMap<String, Map<String, byte[]>> records, SMRRangeMap<String, Boolean> index) {}

  private static final Map<String, Shared> SHARED = new HashMap<>();

  private String endpoint;
  private Shared shared;
  private int buckets;
  private CSMRMap.BucketViews views;
  private boolean fieldUpdates;
  private boolean transactionalUpdates;

  @Override
  public void init() throws DBException {
    endpoint = getProperties().getProperty(ENDPOINT_PROPERTY, DEFAULT_ENDPOINT);
    buckets = YcsbProperties.intProperty(getProperties(), BUCKETS_PROPERTY, DEFAULT_BUCKETS);
    String v = getProperties().getProperty(VIEWS_PROPERTY, "local").toLowerCase(Locale.ROOT);
    if (!v.equals("local") && !v.equals("remote")) {
      throw new DBException(VIEWS_PROPERTY + " must be local or remote, not '" + v + "'");
    }
    views = v.equals("local") ? CSMRMap.BucketViews.LOCAL : CSMRMap.BucketViews.REMOTE;
    String u = getProperties().getProperty(UPDATE_PROPERTY, "fields").toLowerCase(Locale.ROOT);
    if (!u.equals("fields") && !u.equals("fastput") && !u.equals("transaction")) {
      throw new DBException(
          UPDATE_PROPERTY + " must be fields, fastput or transaction, not '" + u + "'");
    }
    fieldUpdates = u.equals("fields");
    transactionalUpdates = u.equals("transaction");
    synchronized (SHARED) {
      Shared s = SHARED.get(endpoint);
      if (s == null) {
        try {
          int leaseMs =
              YcsbProperties.intProperty(getProperties(), LEASE_PROPERTY, DEFAULT_LEASE_MS);
          int conns =
              YcsbProperties.intProperty(
                  getProperties(), CONNECTIONS_PROPERTY, DEFAULT_CONNECTIONS);
          if (conns < 1 || conns > ClientOptions.MAX_CONNECTIONS_PER_NODE) {
            throw new DBException(
                CONNECTIONS_PROPERTY
                    + " must be 1 to "
                    + ClientOptions.MAX_CONNECTIONS_PER_NODE
                    + ", not "
                    + conns);
          }
          StreamLogOptions options =
              StreamLogOptions.defaults()
                  .withReadLease(leaseMs == 0 ? Duration.ZERO : Duration.ofMillis(leaseMs));
          options = options.withRpc(options.rpc().withConnectionsPerNode(conns));
          io.vcorfu.protocol.TlsOptions tls = YcsbTls.options(getProperties(), "vcorfu");
          if (tls != null) {
            options = options.withTls(tls);
          }
          RuntimeOptions runtimeOptions = RuntimeOptions.defaults();
          String history = getProperties().getProperty(HISTORY_PROPERTY);
          if (history != null) {
            runtimeOptions =
                runtimeOptions.withRetainedHistoryBytes(
                    YcsbProperties.intProperty(getProperties(), HISTORY_PROPERTY, 0));
          }
          if (getProperties().getProperty(BUDGET_PROPERTY) != null) {
            long budget = YcsbProperties.longProperty(getProperties(), BUDGET_PROPERTY, 0);
            if (budget < 0) {
              throw new DBException(
                  BUDGET_PROPERTY + " must be 0 (no budget) or a number of bytes, not " + budget);
            }
            runtimeOptions =
                runtimeOptions.withRetention(Retention.DEFAULT.withHistoryBudgetBytes(budget));
          }
          s = new Shared(VCorfuRuntime.connect(endpoint, runtimeOptions, options));
        } catch (RuntimeException e) {
          throw new DBException(
              "Could not connect to vcorfu at " + endpoint + ": " + e.getMessage(), e);
        }
        SHARED.put(endpoint, s);
      }
      s.users++;
      shared = s;
    }
  }

  @Override
  public void cleanup() {
    synchronized (SHARED) {
      if (shared != null && --shared.users == 0) {
        SHARED.remove(endpoint);
        shared.rt.close();
      }
      shared = null;
    }
  }

  @SuppressWarnings("unchecked")
  private Table table(String name) {
    return shared.tables.computeIfAbsent(
        name,
        n ->
            new Table(
                CSMRMap.open(shared.rt, "ycsb/" + n, buckets, views),
                shared.rt.objects().open("ycsb/" + n + "#index", SMRRangeMap.class)));
  }

  @Override
  public Status read(
      String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Map<String, byte[]> record = table(table).records().get(key);
      if (record == null) {
        return Status.NOT_FOUND;
      }
      copy(record, fields, result);
      return Status.OK;
    } catch (RuntimeException e) {
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
      Table t = table(table);
      int taken = 0;
      for (String key : t.index().tailMap(startkey, true).keySet()) {
        if (taken++ == recordcount) {
          break;
        }
        Map<String, byte[]> record = t.records().get(key);
        if (record != null) {
          HashMap<String, ByteIterator> row = new HashMap<>();
          copy(record, fields, row);
          result.add(row);
        }
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      Table t = table(table);
      Map<String, byte[]> record = toRecord(values);
      shared.rt.transaction(
          () -> {
            t.records().fastPut(key, record);
            t.index().fastPut(key, Boolean.TRUE);
          });
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    try {
      Table t = table(table);
      Map<String, byte[]> changes = toRecord(values);
      if (fieldUpdates) {
        t.records().fastUpdateFields(key, changes);
        return Status.OK;
      }
      if (transactionalUpdates) {
        boolean found =
            shared.rt.transaction(
                () -> {
                  Map<String, byte[]> current = t.records().get(key);
                  if (current == null) {
                    return false;
                  }
                  t.records().put(key, merged(current, changes));
                  return true;
                });
        return found ? Status.OK : Status.NOT_FOUND;
      }
      Map<String, byte[]> current = t.records().get(key);
      if (current == null) {
        return Status.NOT_FOUND;
      }
      t.records().fastPut(key, merged(current, changes));
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      Table t = table(table);
      boolean removed =
          shared.rt.transaction(
              () -> {
                boolean had = t.records().remove(key) != null;
                t.index().remove(key);
                return had;
              });
      return removed ? Status.OK : Status.NOT_FOUND;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  private static Map<String, byte[]> toRecord(Map<String, ByteIterator> values) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (Map.Entry<String, ByteIterator> f : values.entrySet()) {
      out.put(f.getKey(), f.getValue().toArray());
    }
    return out;
  }

  private static Map<String, byte[]> merged(
      Map<String, byte[]> current, Map<String, byte[]> changes) {
    Map<String, byte[]> out = new LinkedHashMap<>(current);
    out.putAll(changes);
    return out;
  }

  private static void copy(
      Map<String, byte[]> record, Set<String> fields, Map<String, ByteIterator> into) {
    for (Map.Entry<String, byte[]> f : record.entrySet()) {
      if (fields == null || fields.contains(f.getKey())) {
        into.put(f.getKey(), new ByteArrayByteIterator(f.getValue()));
      }
    }
  }

  /** The bindings registry's endpoint mapping for {@code --endpoint HOST:PORT}. */
  static Map<String, String> endpointProperties(String endpoint) {
    return Map.of(ENDPOINT_PROPERTY, endpoint);
  }
}
