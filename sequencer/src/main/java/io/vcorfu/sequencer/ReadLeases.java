package io.vcorfu.sequencer;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.PackedTokens;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ReadLeaseRequest;
import io.vcorfu.protocol.proto.ReadLeaseResponse;
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
import java.util.function.Predicate;

/**
 * Read leases: the sequencer's side of answering tail queries from a client's memory while keeping
 * every read linearizable.
 *
 * <p>A client holding a lease keeps the tails of the streams it reads in memory and answers its own
 * tail queries from them. Two rules make that linearizable:
 *
 * <ol>
 *   <li><b>Nothing is revealed before every holder knows it.</b> Every token issued is pushed to
 *       every holder ({@link #issued}), and a response that reveals a token to a client (a token, a
 *       tail answer, a sequenced write) is released only once every <em>other</em> client holding a
 *       lease has applied that token, or its lease has run out ({@link #visibleTo}). A write is
 *       acknowledged only after its token response, and a value is observed only after a tail
 *       answer that covers it, so both happen after every holder knows the token.
 *   <li><b>A holder reveals nothing that others may not know yet.</b> A pushed token is not yet
 *       known to every holder, so answering from memory with it would let this holder observe a
 *       write that another holder, asked a moment later, still misses. Every answer to a holder
 *       carries a <em>stable</em> point: every other live holder has applied every token up to it
 *       ({@link #stableFor}). A holder answers from memory only tails whose tokens are at or below
 *       the stable point it knows, and asks the sequencer otherwise (whose answer waits as in rule
 *       1). When the stable point passes tokens already pushed to a parked holder, the sequencer
 *       answers its parked request so that it can use them.
 * </ol>
 *
 * <p>So: once a token is revealed to anyone, every live holder has applied it, and each holder's
 * answer from memory includes every token revealed before the query began. A recipient that holds a
 * lease itself is not waited for: its answer carries every token it has not acknowledged yet
 * ({@link #pushFor}), which it applies before the answer, so a holder that learns a global tail
 * from an answer knows every token up to it.
 *
 * <p><b>Lost, duplicated and reordered messages.</b> Every answer to a holder carries <em>all</em>
 * the tokens it has not acknowledged (not just those since the last answer): an answer that never
 * arrives loses nothing, because the next one repeats it, and a duplicated or late one repeats what
 * the client already merged. An acknowledgement ({@code applied}) covers every token up to it only
 * because of that. Each record of a lease has a {@link LeaseHolder#incarnation} carried by every
 * answer: when the sequencer lets a lease run out it forgets the holder and pushes it nothing, and
 * the client, on seeing a new incarnation, forgets what its memory covered.
 *
 * <p>Pushes ride on the client's one outstanding {@link ReadLeaseRequest}: the sequencer answers it
 * at once when the client has tokens it has not acknowledged, else when a token is issued, when the
 * stable point passes tokens pushed to it, or after a third of the lease with nothing. The next
 * request acknowledges the answer ({@code applied}) and renews the lease from the time the client
 * sent it. But a token of the only live holder's own is not pushed at once ({@link #issued}): its
 * own answer carries it, and its acknowledgement is asked for only when a response to another
 * client waits for it, another client takes a lease, or {@value #DEFERRED_STREAMS} streams' tokens
 * wait. That changes when acknowledgements arrive, not what may be revealed. The client counts its
 * lease from when it sent the request and stops using it a margin before the end; the sequencer
 * counts from when it received the request, later, so the client always stops first.
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

  /** How many streams' tokens a lone holder may leave unacknowledged (each answer carries all). */
  static final int DEFERRED_STREAMS = 8;

  private final LeaseMarker marker;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService timer;
  private final CompletableFuture<Void> serving = new CompletableFuture<>();
  // Guarded by this:
  private final Map<StreamId, LeaseHolder> holders = new HashMap<>();
  private final List<Gate> gates = new ArrayList<>();
  private long issuedTail = -1;
  private ScheduledFuture<?> expiryCheck;
  private long expiryCheckAt = Long.MAX_VALUE;
  private boolean closed;
  // Written under this; read without it on the fast path of visibleTo.
  private volatile boolean anyHolder;

  private record Gate(StreamId recipient, long address, CompletableFuture<Void> done) {}

  /**
   * Leases whose grants are recorded in {@code marker} (null: none, for a sequencer whose state
   * does not outlive the process anyway). Starts serving once the marker's recorded end has passed.
   */
  public ReadLeases(LeaseMarker marker) {
    this(marker, System::nanoTime);
  }

  ReadLeases(LeaseMarker marker, LongSupplier nanoTime) {
    this.marker = marker;
    this.nanoTime = nanoTime;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
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

  /** Records tokens just issued: each holder's next answer carries them. Call in issue order. */
  public void issued(TokenResponse response) {
    issued(PackedTokens.lastAddress(response), response::getTokensList, null);
  }

  /**
   * Records tokens just issued to client {@code requester} (null if unknown), the highest at global
   * address {@code last}; {@code tokens} gives them, asked only while someone holds a lease. Parked
   * requests are answered with them, but a lone holder's own (class comment). Call in issue order.
   */
  public void issued(
      long last, java.util.function.Supplier<List<Token>> tokens, StreamId requester) {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      issuedTail = Math.max(issuedTail, last);
      if (holders.isEmpty()) {
        return;
      }
      long now = nanoTime.getAsLong();
      dropExpired(now, completions);
      List<Token> issued = tokens.get();
      for (LeaseHolder h : holders.values()) {
        for (Token t : issued) {
          h.unacked(t);
        }
        if (h.parked != null
            && !(holders.size() == 1
                && h.client.equals(requester)
                && h.unackedStreams.size() < DEFERRED_STREAMS)) {
          completions.add(answer(h, now));
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
    List<Runnable> completions = new ArrayList<>();
    Gate g;
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (blocking(recipient, address, now) == Long.MAX_VALUE) {
        return CompletableFuture.completedFuture(null);
      }
      g = new Gate(recipient, address, new CompletableFuture<>());
      gates.add(g);
      scheduleExpiryCheck(now);
      // A holder's own tokens may not have been pushed yet (see issued): ask for them now.
      askAcknowledgements(
          h -> h.applied < address && !h.client.equals(recipient), now, completions);
    }
    completions.forEach(Runnable::run);
    return g.done();
  }

  /**
   * Grants or renews {@code client}'s lease and records its acknowledgement; the answer carries
   * every token the client has not acknowledged and the stable point. Answered at once when there
   * is such a token (or the lease is new), else when a token is issued, when the stable point
   * passes tokens already pushed, or when a third of the lease has passed.
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
      LeaseHolder h = holders.get(client);
      boolean fresh = h == null || !h.live(now);
      if (fresh) {
        if (h != null) {
          drop(h, now, completions);
        }
        h = new LeaseHolder(client);
        // Every token issued so far is in any tail answer served from now on; the client learns
        // from the new incarnation that nothing it knew before is covered.
        h.applied = issuedTail;
        holders.put(client, h);
        anyHolder = true;
        // A holder that was alone may have tokens of its own not pushed yet (see issued): the
        // newcomer's stable point waits for its acknowledgement.
        askAcknowledgements(
            o -> !o.client.equals(client) && o.unackedGlobal >= 0, now, completions);
      } else {
        h.applied = Math.max(h.applied, request.getApplied());
        h.forgetAcknowledged();
      }
      h.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(leaseMs);
      h.leaseMs = leaseMs;
      if (h.parked != null) {
        // An earlier request still parked (its answer will not be awaited): answer it, so only
        // the newest one is held.
        completions.add(answer(h, now));
      }
      h.parked = out;
      if (fresh || h.unackedGlobal >= 0) {
        completions.add(answer(h, now));
      } else {
        LeaseHolder parkedHolder = h;
        h.parkTimer =
            timer.schedule(
                () -> renewalPrompt(parkedHolder, out),
                Math.max(1, leaseMs / 3),
                TimeUnit.MILLISECONDS);
      }
      // This acknowledgement may have moved the others' stable point.
      pushStable(now, completions);
      releaseGates(now, completions);
    }
    completions.forEach(Runnable::run);
    return out;
  }

  /**
   * The lease part of an answer to {@code client} revealing tokens up to {@code address} (call
   * after {@link #visibleTo} completed): null when the client holds no lease, else every token it
   * has not acknowledged, for it to apply before the answer (so answers to a holder need not wait
   * for its acknowledgement), and the stable point, at least {@code address} by then.
   */
  public ReadLeaseResponse pushFor(StreamId client, long address) {
    if (client == null || !anyHolder) {
      return null;
    }
    synchronized (this) {
      long now = nanoTime.getAsLong();
      LeaseHolder h = holders.get(client);
      if (h == null || !h.live(now)) {
        return null;
      }
      long stable = stableFor(client, now);
      h.pushedTop = Math.max(h.pushedTop, h.unackedGlobal);
      h.sentStable = Math.max(h.sentStable, stable);
      return h.tokens().setLeaseMs(0).setStable(stable).build();
    }
  }

  /**
   * The stable point for {@code client}: every live holder other than it has applied every token up
   * to the returned address. Caller holds the lock.
   */
  private long stableFor(StreamId client, long now) {
    long stable = issuedTail;
    for (Map.Entry<StreamId, LeaseHolder> e : holders.entrySet()) {
      LeaseHolder other = e.getValue();
      if (other.live(now) && !e.getKey().equals(client)) {
        stable = Math.min(stable, other.applied);
      }
    }
    return stable;
  }

  /** Ends {@code client}'s lease at once: nobody waits for it any more. */
  private ReadLeaseResponse release(StreamId client) {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      long now = nanoTime.getAsLong();
      LeaseHolder h = holders.remove(client);
      if (h != null) {
        drop(h, now, completions);
      }
      anyHolder = !holders.isEmpty();
      pushStable(now, completions);
      releaseGates(now, completions);
    }
    completions.forEach(Runnable::run);
    return ReadLeaseResponse.newBuilder().setLeaseMs(0).setGlobalTail(-1).setStable(-1).build();
  }

  private void renewalPrompt(LeaseHolder h, CompletableFuture<ReadLeaseResponse> parked) {
    Runnable r;
    synchronized (this) {
      if (h.parked != parked) {
        return;
      }
      r = answer(h, nanoTime.getAsLong());
    }
    r.run();
  }

  /**
   * Answers {@code h}'s parked request with every token it has not acknowledged and its stable
   * point. Caller holds the lock.
   */
  private Runnable answer(LeaseHolder h, long now) {
    long stable = stableFor(h.client, now);
    ReadLeaseResponse response =
        h.tokens().setLeaseMs(h.leaseMs).setIncarnation(h.incarnation).setStable(stable).build();
    h.pushedTop = Math.max(h.pushedTop, h.unackedGlobal);
    h.sentStable = Math.max(h.sentStable, stable);
    CompletableFuture<ReadLeaseResponse> parked = h.parked;
    h.parked = null;
    if (h.parkTimer != null) {
      h.parkTimer.cancel(false);
      h.parkTimer = null;
    }
    return () -> parked.complete(response);
  }

  /**
   * Answers the parked request of every holder whose stable point has passed what it was last told
   * while tokens pushed to it wait for it. Caller holds the lock.
   */
  private void pushStable(long now, List<Runnable> completions) {
    for (LeaseHolder h : holders.values()) {
      if (h.parked != null
          && h.live(now)
          && h.waitsForStable()
          && stableFor(h.client, now) > h.sentStable) {
        completions.add(answer(h, now));
      }
    }
  }

  /** Answers the parked request of every live holder {@code which} picks. Caller holds the lock. */
  private void askAcknowledgements(Predicate<LeaseHolder> which, long now, List<Runnable> done) {
    for (LeaseHolder h : holders.values()) {
      if (h.parked != null && h.live(now) && which.test(h)) {
        done.add(answer(h, now));
      }
    }
  }

  /** Forgets every holder whose lease has run out. Caller holds the lock. */
  private void dropExpired(long now, List<Runnable> completions) {
    for (Iterator<LeaseHolder> it = holders.values().iterator(); it.hasNext(); ) {
      LeaseHolder h = it.next();
      if (!h.live(now)) {
        drop(h, now, completions);
        it.remove();
      }
    }
  }

  /**
   * Forgets an expired holder, answering its parked request (its next request starts a new
   * incarnation).
   */
  private void drop(LeaseHolder h, long now, List<Runnable> completions) {
    if (h.parked != null) {
      completions.add(answer(h, now));
    }
  }

  /**
   * The earliest lease end (nanoTime) among the holders other than {@code recipient} that have not
   * applied {@code address} yet, or {@link Long#MAX_VALUE} when none is left. Caller holds the
   * lock.
   */
  private long blocking(StreamId recipient, long address, long now) {
    long earliest = Long.MAX_VALUE;
    for (Map.Entry<StreamId, LeaseHolder> e : holders.entrySet()) {
      LeaseHolder h = e.getValue();
      if (h.live(now) && h.applied < address && !e.getKey().equals(recipient)) {
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

  /**
   * Re-checks the gates when the earliest lease that blocks one of them runs out. Caller holds the
   * lock.
   */
  private void scheduleExpiryCheck(long now) {
    long at = Long.MAX_VALUE;
    for (Gate g : gates) {
      at = Math.min(at, blocking(g.recipient(), g.address(), now));
    }
    if (at == Long.MAX_VALUE
        || (expiryCheck != null && expiryCheckAt - at <= 0 && !expiryCheck.isDone())) {
      return;
    }
    if (expiryCheck != null) {
      expiryCheck.cancel(false);
    }
    expiryCheckAt = at;
    expiryCheck =
        timer.schedule(this::expiryCheck, Math.max(0, at - now) + 1_000, TimeUnit.NANOSECONDS);
  }

  private void expiryCheck() {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      expiryCheck = null;
      long now = nanoTime.getAsLong();
      dropExpired(now, completions);
      anyHolder = !holders.isEmpty();
      pushStable(now, completions);
      releaseGates(now, completions);
    }
    completions.forEach(Runnable::run);
  }

  /** Clients currently holding a lease (for tests and diagnostics). */
  public synchronized int holders() {
    long now = nanoTime.getAsLong();
    return (int) holders.values().stream().filter(h -> h.live(now)).count();
  }

  @Override
  public void close() {
    List<Runnable> completions = new ArrayList<>();
    synchronized (this) {
      closed = true;
      long now = nanoTime.getAsLong();
      for (LeaseHolder h : holders.values()) {
        drop(h, now, completions);
      }
      holders.clear();
      anyHolder = false;
      for (Gate g : gates) {
        completions.add(
            () ->
                g.done()
                    .completeExceptionally(
                        new io.vcorfu.protocol.NotServingException("sequencer")));
      }
      gates.clear();
    }
    completions.forEach(Runnable::run);
    timer.shutdownNow();
  }
}
