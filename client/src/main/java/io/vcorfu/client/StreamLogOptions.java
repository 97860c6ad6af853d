package io.vcorfu.client;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.TlsOptions;
import java.time.Duration;

/**
 * Client settings of the stream layer.
 *
 * @param repairAfter how long a reader waits for an in-flight write before repairing it (finishing
 *     or filling it); bounds how long a dead writer can stall readers
 * @param maxEntryBytes largest payload accepted, checked before a token is taken
 * @param maxAppendAttempts how many fresh tokens an append tries before failing when readers keep
 *     filling its slots (attempts aborted by a failover are bounded by {@code failoverTimeout})
 * @param rpc transport settings (timeouts, frame size)
 * @param writeCacheBytes how many bytes of this client's own committed appends it keeps to serve
 *     reads of them without a request (oldest evicted first; 0 disables). A local view of an object
 *     this client updates then syncs past its own updates from memory.
 * @param readLease length of the read lease this client keeps while it queries tails ({@link
 *     Duration#ZERO}, the default: none). With a lease, linearizable tail queries (every local-view
 *     read) are answered from memory; the price is paid by writers: the sequencer answers another
 *     client's token or tail query only after every lease holder has learnt the tokens it reveals,
 *     or after the holder's lease ran out if it does not answer.
 * @param failoverTimeout how long one operation keeps retrying errors that a layout change cures (a
 *     node that cannot be reached or does not answer, a refused epoch, a node waiting for its new
 *     layout), refreshing the layout between attempts; see {@link StreamLog} for what is retried.
 *     {@link Duration#ZERO} retries nothing.
 * @param layoutCheckAfter how long a request waits before the client asks the other nodes whether
 *     the layout moved on (every such interval while it waits); a request sent in an epoch the
 *     layout has since left is then abandoned and retried on the new layout instead of waiting out
 *     the request timeout (see {@code LayoutWatch}). {@link Duration#ZERO} turns this off.
 * @param sequencerWrites whether an append goes to the sequencer node whole (token and data in one
 *     request) when the layout lets that node write every copy itself (it serves in every log
 *     chain): one round trip for the writer, and the copies of every client's appends share the
 *     nodes' connections. Off: the writer takes a token and writes every copy itself. A one-node
 *     layout takes appends whole either way.
 * @param tls the TLS this client speaks (null, the default: plaintext): the CA that signed the
 *     nodes' certificates, and this client's own certificate and key, which nodes with TLS require
 *     (mutual TLS: the certificate's subject is the client's principal). Used by the transport a
 *     log opens for itself; a log given a transport uses that transport's TLS, which must be the
 *     same. See {@link io.vcorfu.protocol.netty.TlsContexts} for what TLS guarantees.
 */
public record StreamLogOptions(
    Duration repairAfter,
    int maxEntryBytes,
    int maxAppendAttempts,
    ClientOptions rpc,
    long writeCacheBytes,
    Duration readLease,
    Duration failoverTimeout,
    Duration layoutCheckAfter,
    boolean sequencerWrites,
    TlsOptions tls) {

  public static final Duration DEFAULT_LAYOUT_CHECK_AFTER = Duration.ofMillis(250);
  public static final Duration DEFAULT_REPAIR_AFTER = Duration.ofMillis(250);
  public static final int DEFAULT_MAX_ENTRY_BYTES = 4 * 1024 * 1024;

  /**
   * 4 MiB: a local view syncs past its own updates within moments of writing them, so a few seconds
   * of a busy client's appends are enough; a larger cache keeps every entry alive long enough to
   * survive the collector's young collections and be copied into the old generation, where it then
   * dies (32 MiB cost a YCSB A client a quarter more collector pause time and 14-22% of its
   * throughput).
   */
  public static final long DEFAULT_WRITE_CACHE_BYTES = 4L * 1024 * 1024;

  public static final Duration DEFAULT_FAILOVER_TIMEOUT = Duration.ofSeconds(30);

  public StreamLogOptions {
    if (writeCacheBytes < 0) {
      throw new IllegalArgumentException("writeCacheBytes must be >= 0, got " + writeCacheBytes);
    }
    if (readLease.isNegative() || (!readLease.isZero() && readLease.toMillis() < 10)) {
      throw new IllegalArgumentException(
          "readLease must be zero (none) or at least 10 ms, got " + readLease);
    }
    if (failoverTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "failoverTimeout must be zero (no retries) or more, got " + failoverTimeout);
    }
    if (layoutCheckAfter.isNegative()) {
      throw new IllegalArgumentException(
          "layoutCheckAfter must be zero (off) or more, got " + layoutCheckAfter);
    }
  }

  public static StreamLogOptions defaults() {
    return new StreamLogOptions(
        DEFAULT_REPAIR_AFTER,
        DEFAULT_MAX_ENTRY_BYTES,
        16,
        ClientOptions.defaults(),
        DEFAULT_WRITE_CACHE_BYTES,
        Duration.ZERO,
        DEFAULT_FAILOVER_TIMEOUT,
        DEFAULT_LAYOUT_CHECK_AFTER,
        true,
        null);
  }

  public StreamLogOptions withRepairAfter(Duration d) {
    return new StreamLogOptions(
        d,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  public StreamLogOptions withRpc(ClientOptions options) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        options,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  public StreamLogOptions withMaxEntryBytes(int bytes) {
    return new StreamLogOptions(
        repairAfter,
        bytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  public StreamLogOptions withMaxAppendAttempts(int attempts) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        attempts,
        rpc,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  /** The same options with a read lease of {@code lease} ({@link Duration#ZERO}: none). */
  public StreamLogOptions withReadLease(Duration lease) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        lease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  /** The same options with a write cache of {@code bytes} (0: reads always go to the replicas). */
  public StreamLogOptions withWriteCacheBytes(long bytes) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        bytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  /**
   * The same options with operations retrying through layout changes for up to {@code timeout}
   * ({@link Duration#ZERO}: an operation fails at its first error).
   */
  public StreamLogOptions withFailoverTimeout(Duration timeout) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        readLease,
        timeout,
        layoutCheckAfter,
        sequencerWrites,
        tls);
  }

  /**
   * The same options with requests checked against the layout after waiting {@code after} ({@link
   * Duration#ZERO}: requests wait out their timeout).
   */
  public StreamLogOptions withLayoutCheckAfter(Duration after) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        after,
        sequencerWrites,
        tls);
  }

  /**
   * The same options with appends sent whole to the sequencer node when the layout allows ({@code
   * true}, the default) or written by this client copy by copy ({@code false}).
   */
  public StreamLogOptions withSequencerWrites(boolean on) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        on,
        tls);
  }

  /**
   * The same options speaking TLS as {@code options} say (null: plaintext). A node with TLS
   * requires a client certificate: give one with {@link TlsOptions#withIdentity}.
   */
  public StreamLogOptions withTls(TlsOptions options) {
    return new StreamLogOptions(
        repairAfter,
        maxEntryBytes,
        maxAppendAttempts,
        rpc,
        writeCacheBytes,
        readLease,
        failoverTimeout,
        layoutCheckAfter,
        sequencerWrites,
        options);
  }
}
