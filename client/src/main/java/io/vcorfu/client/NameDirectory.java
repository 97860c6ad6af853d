package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The name directory: every name clients gave the streams, maps and objects they use, kept in the
 * log itself, on the directory stream {@link StreamId#NAME_DIRECTORY}, one {@link DirectoryEntry}
 * record per registration. A stream's id is a hash of its name, so nothing else can tell the names
 * back; the directory is what {@code vcorfu log list}, {@code vcorfu map list} and the node's
 * status page read.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li><b>Never trimmed.</b> Stream replicas refuse every trim of the directory stream ({@code
 *       StreamReplica.trim}), whoever asks: no retention reaches it (automatic checkpoints trim
 *       only the streams of objects a runtime has open, and their checkpoint streams; the node's
 *       log retention trims the global log, whose entries stay on their streams), and {@code vcorfu
 *       log trim} cannot name it (its id is no name's hash). So every acknowledged registration
 *       stays readable, across restarts and failovers like any stream.
 *   <li><b>Registered before use.</b> Clients register a name before their first write under it
 *       ({@code vcorfu log append}, the runtime opening an object or map by name), so a name with
 *       data is always listed; a registration whose write then fails lists a name with nothing in
 *       it, never the other way round.
 *   <li><b>Registering twice is harmless.</b> {@link #list} keeps one entry per kind and name: the
 *       first record in the log gives its address, type and stream, and its parts are the most any
 *       record gave. A client writes a record only for a name that neither its cache nor the
 *       directory read up to its tail at that moment holds, so a record is written again only by
 *       clients racing on one new name, and then listed once.
 *   <li><b>One write per name, not per append.</b> A name this client registered or read is
 *       answered from its cache, with no request.
 * </ul>
 *
 * <p>Thread-safe. The requests of one directory run one after the other.
 */
public final class NameDirectory {
  /** The directory's stream. */
  public static final StreamId STREAM = StreamId.NAME_DIRECTORY;

  /** Slots read in one request. */
  static final int PAGE = 4096;

  private record Key(String kind, String name) {
    static Key of(DirectoryEntry e) {
      return new Key(e.kind(), e.name());
    }
  }

  private final StreamLog log;
  private final Map<Key, DirectoryEntry> known = new HashMap<>(); // guarded by this
  private long readThrough = -1; // guarded by this: the directory's stream addresses read
  private CompletableFuture<?> last = CompletableFuture.completedFuture(null); // guarded by this

  /** The directory as {@code log} reaches it. */
  public NameDirectory(StreamLog log) {
    this.log = log;
  }

  /**
   * Registers {@code wanted} unless the directory already holds its kind and name (with at least
   * its parts); completes with the directory's entry for it. Costs no request for a name this
   * directory registered or read before; otherwise reads the records it has not read yet, and
   * appends one record only when the name is still missing.
   */
  public CompletableFuture<DirectoryEntry> register(DirectoryEntry wanted) {
    DirectoryEntry have = covering(wanted);
    if (have != null) {
      return CompletableFuture.completedFuture(have);
    }
    return serially(() -> registerNow(wanted));
  }

  /** Every name in the directory, read up to its tail now: sorted by name, then kind. */
  public CompletableFuture<List<DirectoryEntry>> list() {
    return serially(() -> catchUp().thenApply(v -> cached()));
  }

  /** The names this directory knows without a request (registered or read), as {@link #list}. */
  public synchronized List<DirectoryEntry> cached() {
    List<DirectoryEntry> all = new ArrayList<>(known.values());
    all.sort(Comparator.comparing(DirectoryEntry::name).thenComparing(DirectoryEntry::kind));
    return all;
  }

  private CompletableFuture<DirectoryEntry> registerNow(DirectoryEntry wanted) {
    DirectoryEntry have = covering(wanted);
    if (have != null) {
      return CompletableFuture.completedFuture(have);
    }
    return catchUp()
        .thenCompose(
            v -> {
              DirectoryEntry read = covering(wanted);
              if (read != null) {
                return CompletableFuture.completedFuture(read);
              }
              return log.append(List.of(STREAM), wanted.encode())
                  .thenApply(r -> add(withAddress(wanted, r.globalAddress())));
            });
  }

  private static DirectoryEntry withAddress(DirectoryEntry e, long address) {
    return new DirectoryEntry(e.name(), e.kind(), e.type(), e.stream(), address, e.parts());
  }

  private synchronized DirectoryEntry covering(DirectoryEntry wanted) {
    DirectoryEntry have = known.get(Key.of(wanted));
    return have != null && have.covers(wanted) ? have : null;
  }

  /** Adds one record (merged with what is known of its name); returns the merged entry. */
  private synchronized DirectoryEntry add(DirectoryEntry e) {
    return known.merge(Key.of(e), e, DirectoryEntry::merge);
  }

  /** Reads the records appended since this directory last read, up to the tail now. */
  private CompletableFuture<Void> catchUp() {
    return log.tails(List.of(STREAM))
        .thenCompose(t -> readUpTo(t.streamTails().getOrDefault(STREAM, -1L)));
  }

  private CompletableFuture<Void> readUpTo(long tail) {
    long from;
    synchronized (this) {
      from = readThrough + 1;
    }
    if (from > tail) {
      return CompletableFuture.completedFuture(null);
    }
    long to = Math.min(tail, from + PAGE - 1);
    return log.readStream(STREAM, from, to)
        .handle(
            (page, error) -> {
              if (error == null) {
                return apply(page);
              }
              Throwable cause = error instanceof CompletionException c ? c.getCause() : error;
              if (cause instanceof TrimmedException t && t.trimMark() > from) {
                // Not by this version (its replicas refuse such trims): what lies below is gone.
                synchronized (this) {
                  readThrough = Math.max(readThrough, t.trimMark() - 1);
                }
                return true;
              }
              throw error instanceof CompletionException c ? c : new CompletionException(error);
            })
        .thenCompose(
            progressed ->
                progressed ? readUpTo(tail) : CompletableFuture.<Void>completedFuture(null));
  }

  /** Takes in the records of {@code page} not read yet; true when it read anything new. */
  private synchronized boolean apply(List<StreamEntry> page) {
    boolean progressed = false;
    for (StreamEntry e : page) {
      if (e.streamAddress() <= readThrough) {
        continue;
      }
      readThrough = e.streamAddress();
      progressed = true;
      if (!e.isHole()) {
        DirectoryEntry record = DirectoryEntry.decode(e.payload(), e.globalAddress());
        if (record != null) {
          add(record);
        }
      }
    }
    return progressed;
  }

  /**
   * Runs {@code op} once the operations started before it are done, whatever their outcome; an
   * operation its caller gave up on (a timeout) lets the next one start.
   */
  private synchronized <T> CompletableFuture<T> serially(Supplier<CompletableFuture<T>> op) {
    CompletableFuture<T> next = last.handle((v, e) -> null).thenCompose(v -> op.get());
    last = next;
    return next;
  }
}
