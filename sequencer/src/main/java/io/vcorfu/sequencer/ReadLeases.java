package io.vcorfu.sequencer;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseRequest;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.Token;
import io.vcorfu.protocol.proto.TokenResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Read leases: the sequencer's side of answering tail queries from a client's memory while keeping
 * every read linearizable.
 *
 * <p>A client holding a lease keeps the tails of the streams it reads in memory and answers its own
 * tail queries from them. That is linearizable if the client has learnt every token whose write
 * could have been acknowledged, or observed by anyone, before its read began. The sequencer
 * guarantees it: every token issued is pushed to every lease holder ({@link #issued}), and a
 * response that reveals a token to a client (a token, a tail answer, a sequenced write) is released
 * only once every client holding a lease has applied the push of that token, or its lease has run
 * out ({@link #visibleTo}). A write is acknowledged only after its token response, and a value is
 * observed only after a tail answer that covers it, so both happen after every lease holder knows
 * the token. A recipient that holds a lease itself is not waited for: its answer carries every
 * token it has not acknowledged yet ({@link #pushFor}), which it applies before the answer. So a
 * holder that learns a global tail from an answer knows every token up to it, and the tails of all
 * the streams its lease covers are at least as new as that global tail (a transaction's snapshot
 * taken from memory misses nothing).
 *
 * <p>Pushes ride on the client's one outstanding {@link ReadLeaseRequest}: the sequencer answers it
 * with the tokens issued since the last answer as soon as there are any, or after a third of the
 * lease with nothing, prompting the renewal. The next request acknowledges the push ({@code
 * applied}) and renews the lease from the time the client sent it. The client counts its lease from
 * when it sent the request and stops using it a margin before the end; the sequencer counts from
 * when it received the request, later, so the client always stops first.
 *
 * <p>A client that dies or stalls holds up others' token and tail responses until its lease runs
 * out ({@link #MAX_LEASE} at most). After a restart the sequencer does not know who held a lease:
 * with a {@link LeaseMarker} it waits until every lease it may have granted has run out before it
 * answers anything ({@link #serving}).
 *
 * <p>Thread-safe. {@link #issued} must be called in the order the tokens were issued.
 */
public final class ReadLeases implements AutoCloseable {
  /** The longest lease granted. */
  public static final Duration MAX_LEASE = Duration.ofSeconds(10);

  private final LeaseMarker marker;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService timer;
  private final CompletableFuture<Void> serving = new CompletableFuture<>();
  // Guarded by this:
  private final Map<StreamId, Holder> holders = new HashMap<>();
  private final List<Gate> gates = new ArrayList<>();
  private long issuedTail = -1;
  private ScheduledFuture<?> expiryCheck;
  private long expiryCheckAt = Long.MAX_VALUE;
  private boolean closed;
  // Written under this; read without it on the fast path of visibleTo.
  private volatile boolean anyHolder;

  /** Client state of one lease holder. */
  private static final class Holder {
    long expiresAt;
    long applied;
    long pendingGlobal = -1;
    final Map<StreamId, long[]> pendingStreams = new HashMap<>();
    // Pushed but not acknowledged yet: resent with every revealing answer to this holder.
    long unackedGlobal = -1;
    final Map<StreamId, long[]> unackedStreams = new HashMap<>();
    CompletableFuture<ReadLeaseResponse> parked;
    ScheduledFuture<?> parkTimer;
    int leaseMs;
  }

  private record Gate(StreamId recipient, long address, CompletableFuture<Void> done) {}

  /**
   * Leases whose grants are recorded in {@code marker} (null: none, for a sequencer whose state does
   * not outlive the process anyway). Starts serving once the marker's recorded end has passed.
   */
  public ReadLeases(LeaseMarker marker) {
    this(marker, System::nanoTime);
  }

  ReadLeases(LeaseMarker marker, LongSupplier nanoTime) {
    this.marker = marker;
    this.nanoTime = nanoTime;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "read-leases");
      t.setDaemon(true);
      return t;
    });
    long waitMs = marker == null ? 0 : marker.recordedUntilMillis() - System.currentTimeMillis();
    if (waitMs <= 0) {
      serving.complete(null);
    } else {
      timer.schedule(() -> serving.complete(null), waitMs, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Completes once leases granted before a restart have all run out: until then no token or tail
   * may be revealed, since an old holder may still be answering reads from memory.
   */
  public CompletableFuture<Void> serving() {
    return serving;
  }

  /** Records tokens just issued: each holder's next push carries them. Call in issue order. */
  public void issued(TokenResponse response) {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      long top = issuedTail;
      for (Token t : response.getTokensList()) {
        top = Math.max(top, t.getGlobalAddress());
      }
      issuedTail = top;
      if (holders.isEmpty()) {
        return;
      }
      long now = nanoTime.getAsLong();
      dropExpired(now, completions);
      for (Holder h : holders.values()) {
        for (Token t : response.getTokensList()) {
          h.pendingGlobal = Math.max(h.pendingGlobal, t.getGlobalAddress());
          for (StreamSlot slot : t.getSlotsList()) {
            merge(h.pendingStreams, StreamId.fromMsg(slot.getStream()), slot.getStreamAddress(), t.getGlobalAddress());
          }
        }
        if (h.parked != null) {
          completions.add(answer(h, false));
        }
      }
      anyHolder = !holders.isEmpty();
      releaseGates(now, completions);
    }
    completions.forEach(Runnable::run);
  }

  /**
   * Completes when a response revealing tokens up to global address {@code address} may be sent to
   * {@code recipient}: every other client holding a lease has applied them, or its lease ran out.
   * The recipient, if it holds a lease, gets what it has not applied with the answer ({@link
   * #pushFor}, which must be called after this completes).
   */
  public CompletableFuture<Void> visibleTo(StreamId recipient, long address) {
    if (!anyHolder) {
      return CompletableFuture.completedFuture(null);
    }
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (blocking(recipient, address, now) == Long.MAX_VALUE) {
        return CompletableFuture.completedFuture(null);
      }
      Gate g = new Gate(recipient, address, new CompletableFuture<>());
      gates.add(g);
      scheduleExpiryCheck(now);
      return g.done();
    }
  }

  /**
   * Grants or renews {@code client}'s lease and records its acknowledgement; the answer carries
   * the tokens issued since the last one. Answered at once when there is something to push (or the
   * lease is new), else when a token is issued or a third of the lease has passed.
   */
  public CompletableFuture<ReadLeaseResponse> lease(StreamId client, ReadLeaseRequest request) {
    if (client == null) {
      throw new BadRequestException("A read lease needs a client id in the request header.");
    }
    if (request.getRelease()) {
      return CompletableFuture.completedFuture(release(client));
    }
    if (request.getLeaseMs() == 0) {
      throw new BadRequestException("A read lease must ask for at least 1 ms.");
    }
    int leaseMs = (int) Math.min(request.getLeaseMs(), MAX_LEASE.toMillis());
    if (marker != null) {
      // Before granting: a restarted sequencer must know how long to wait for this lease to end.
      marker.cover(System.currentTimeMillis() + leaseMs);
    }
    List<Runnable> completions = new ArrayList<>();
    CompletableFuture<ReadLeaseResponse> out = new CompletableFuture<>();
    synchronized (this) {
      if (closed) {
        throw new io.vcorfu.protocol.NotServingException("sequencer");
      }
      long now = nanoTime.getAsLong();
      Holder h = holders.get(client);
      boolean fresh = h == null || h.expiresAt - now <= 0;
      if (fresh) {
        if (h != null) {
          drop(h, completions);
        }
        h = new Holder();
        // Every token issued so far is in any tail answer served from now on.
        h.applied = issuedTail;
        holders.put(client, h);
        anyHolder = true;
      } else {
        h.applied = Math.max(h.applied, request.getApplied());
        forgetAcknowledged(h);
      }
      h.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(leaseMs);
      h.leaseMs = leaseMs;
      if (h.parked != null) {
        completions.add(answer(h, false));
      }
      h.parked = out;
      if (fresh || h.pendingGlobal >= 0) {
        completions.add(answer(h, fresh));
      } else {
        Holder parkedHolder = h;
        h.parkTimer = timer.schedule(() -> renewalPrompt(parkedHolder, out), Math.max(1, leaseMs / 3), TimeUnit.MILLISECONDS);
      }
      releaseGates(now, completions);
    }
    completions.forEach(Runnable::run);
    return out;
  }

  private static void merge(Map<StreamId, long[]> into, StreamId stream, long tail, long lastGlobal) {
    long[] v = into.computeIfAbsent(stream, s -> new long[] {-1, -1});
    if (tail > v[0]) {
      v[0] = tail;
      v[1] = lastGlobal;
    }
  }

  private static void forgetAcknowledged(Holder h) {
    if (h.applied >= h.unackedGlobal) {
      h.unackedGlobal = -1;
      h.unackedStreams.clear();
    } else {
      h.unackedStreams.values().removeIf(v -> v[1] <= h.applied);
    }
  }

  /**
   * For an answer to {@code client} revealing tokens up to {@code address}: null when the client
   * holds no lease or has applied them all, else every token it has not acknowledged (pushed or
   * not), for it to apply before the answer (so answers to a holder need not wait for its ack).
   */
  public ReadLeaseResponse pushFor(StreamId client, long address) {
    if (client == null || !anyHolder) {
      return null;
    }
    synchronized (this) {
      Holder h = holders.get(client);
      if (h == null || h.applied >= address || h.expiresAt - nanoTime.getAsLong() <= 0) {
        return null;
      }
      Map<StreamId, long[]> all = new HashMap<>();
      h.unackedStreams.forEach((stream, v) -> merge(all, stream, v[0], v[1]));
      h.pendingStreams.forEach((stream, v) -> merge(all, stream, v[0], v[1]));
      ReadLeaseResponse.Builder b = ReadLeaseResponse.newBuilder()
          .setLeaseMs(0).setGlobalTail(Math.max(h.unackedGlobal, h.pendingGlobal));
      all.forEach((stream, v) -> b.addStreams(stream.toMsg()).addStreamTails(v[0]).addStreamLastGlobal(v[1]));
      return b.build();
    }
  }

  /** Ends {@code client}'s lease at once: nobody waits for it any more. */
  private ReadLeaseResponse release(StreamId client) {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      Holder h = holders.remove(client);
      if (h != null) {
        drop(h, completions);
      }
      anyHolder = !holders.isEmpty();
      releaseGates(nanoTime.getAsLong(), completions);
    }
    completions.forEach(Runnable::run);
    return ReadLeaseResponse.newBuilder().setLeaseMs(0).setGlobalTail(-1).build();
  }

  private void renewalPrompt(Holder h, CompletableFuture<ReadLeaseResponse> parked) {
    Runnable r;
    synchronized (this) {
      if (h.parked != parked) {
        return;
      }
      r = answer(h, false);
    }
    r.run();
  }

  /** Takes {@code h}'s pending tokens into the answer to its parked request. Caller holds the lock. */
  private Runnable answer(Holder h, boolean fresh) {
    ReadLeaseResponse.Builder b = ReadLeaseResponse.newBuilder()
        .setLeaseMs(h.leaseMs).setFresh(fresh).setGlobalTail(h.pendingGlobal);
    for (Map.Entry<StreamId, long[]> e : h.pendingStreams.entrySet()) {
      b.addStreams(e.getKey().toMsg()).addStreamTails(e.getValue()[0]).addStreamLastGlobal(e.getValue()[1]);
    }
    h.unackedGlobal = Math.max(h.unackedGlobal, h.pendingGlobal);
    h.pendingStreams.forEach((stream, v) -> merge(h.unackedStreams, stream, v[0], v[1]));
    h.pendingGlobal = -1;
    h.pendingStreams.clear();
    CompletableFuture<ReadLeaseResponse> parked = h.parked;
    h.parked = null;
    if (h.parkTimer != null) {
      h.parkTimer.cancel(false);
      h.parkTimer = null;
    }
    ReadLeaseResponse response = b.build();
    return () -> parked.complete(response);
  }

  /** Forgets every holder whose lease has run out. Caller holds the lock. */
  private void dropExpired(long now, List<Runnable> completions) {
    for (Iterator<Holder> it = holders.values().iterator(); it.hasNext(); ) {
      Holder h = it.next();
      if (h.expiresAt - now <= 0) {
        drop(h, completions);
        it.remove();
      }
    }
  }

  /** Forgets an expired holder, answering its parked request (it will find its lease fresh next time). */
  private void drop(Holder h, List<Runnable> completions) {
    if (h.parked != null) {
      completions.add(answer(h, false));
    }
  }

  /**
   * The earliest lease end (nanoTime) among the holders other than {@code recipient} that have not
   * applied {@code address} yet, or {@link Long#MAX_VALUE} when none is left. Caller holds the lock.
   */
  private long blocking(StreamId recipient, long address, long now) {
    long earliest = Long.MAX_VALUE;
    for (Map.Entry<StreamId, Holder> e : holders.entrySet()) {
      Holder h = e.getValue();
      if (h.expiresAt - now > 0 && h.applied < address && !e.getKey().equals(recipient)) {
        earliest = Math.min(earliest, h.expiresAt);
      }
    }
    return earliest;
  }

  /** Completes the gates nobody blocks any more. Caller holds the lock. */
  private void releaseGates(long now, List<Runnable> completions) {
    for (Iterator<Gate> it = gates.iterator(); it.hasNext(); ) {
      Gate g = it.next();
      if (blocking(g.recipient(), g.address(), now) == Long.MAX_VALUE) {
        it.remove();
        completions.add(() -> g.done().complete(null));
      }
    }
    if (!gates.isEmpty()) {
      scheduleExpiryCheck(now);
    }
  }

  /** Re-checks the gates when the earliest lease that blocks one of them runs out. Caller holds the lock. */
  private void scheduleExpiryCheck(long now) {
    long at = Long.MAX_VALUE;
    for (Gate g : gates) {
      at = Math.min(at, blocking(g.recipient(), g.address(), now));
    }
    if (at == Long.MAX_VALUE || (expiryCheck != null && expiryCheckAt - at <= 0 && !expiryCheck.isDone())) {
      return;
    }
    if (expiryCheck != null) {
      expiryCheck.cancel(false);
    }
    expiryCheckAt = at;
    expiryCheck = timer.schedule(this::expiryCheck, Math.max(0, at - now) + 1_000, TimeUnit.NANOSECONDS);
  }

  private void expiryCheck() {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      expiryCheck = null;
      long now = nanoTime.getAsLong();
      dropExpired(now, completions);
      anyHolder = !holders.isEmpty();
      releaseGates(now, completions);
    }
    completions.forEach(Runnable::run);
  }

  /** Clients currently holding a lease (for tests and diagnostics). */
  public synchronized int holders() {
    long now = nanoTime.getAsLong();
    return (int) holders.values().stream().filter(h -> h.expiresAt - now > 0).count();
  }

  @Override
  public void close() {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Holder h : holders.values()) {
        drop(h, completions);
      }
      holders.clear();
      anyHolder = false;
      for (Gate g : gates) {
        completions.add(() -> g.done().completeExceptionally(new io.vcorfu.protocol.NotServingException("sequencer")));
      }
      gates.clear();
    }
    completions.forEach(Runnable::run);
    timer.shutdownNow();
  }
}
