package io.vcorfu.protocol.inmemory;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * One fault the {@link InJvmTransport} injects into matching messages.
 *
 * <p>A rule matches a message by direction (requests, responses, or both for partitions), by target
 * server endpoint, by the request's payload case, by a predicate on the request (for a response:
 * the request it answers) and, for responses, by a predicate on the response itself (for example:
 * only answers carrying a lease push). Unset criteria match everything. A rule may act on a limited
 * number of messages ({@link Matcher#limit}) and match nothing after that. Built fluently:
 *
 * <pre>{@code
 * FaultRule.requests().to(sequencer).ofCase(Request.PayloadCase.TOKEN).drop();
 * FaultRule.responses().to(replica).delay(Duration.ofMillis(200));
 * FaultRule.requests().to(replica).reorder(3);
 * FaultRule.partition(replica);
 * FaultRule.responses().ofCase(Request.PayloadCase.READ_LEASE).whenAnswer(r -> ...).limit(1)
 *     .drop();
 * FaultRule.requests().ofCase(Request.PayloadCase.READ_LEASE).duplicate();
 * }</pre>
 *
 * Actions: {@link Action#DROP} loses the message (the call times out); {@link Action#DELAY}
 * delivers it after a fixed time; {@link Action#REORDER} holds matching messages until {@code
 * batch} of them are held, then releases them in reverse arrival order (removing the rule releases
 * whatever it holds, also reversed); {@link Action#DUPLICATE} delivers the message twice (a
 * duplicated request is handled twice, and the server's second answer is ignored by the client,
 * which has its answer already, as it ignores any answer to a request id it no longer waits for; a
 * duplicated response is likewise ignored); {@link Action#PARTITION} makes the endpoint
 * unreachable: a request fails at once with {@code TransportException}, and a response in flight is
 * lost with the same error for its call; {@link Action#REPLACE} (responses only) delivers another
 * answer in place of the server's, after the server has handled the request (for example an error
 * answer to a write the server did store). Thread-safe.
 */
public final class FaultRule {

  /** Which messages a rule looks at. */
  public enum Direction {
    REQUEST,
    RESPONSE,
    BOTH
  }

  /** What a rule does to a message it matches. */
  public enum Action {
    DROP,
    DELAY,
    REORDER,
    DUPLICATE,
    PARTITION,
    REPLACE
  }

  private final Direction direction;
  private final Endpoint target;
  private final Set<Request.PayloadCase> cases;
  private final Predicate<Request> predicate;
  private final Predicate<Response> answerPredicate;
  private final long limit;
  private final Action action;
  private final Duration delay;
  private final int batch;
  private final Response replacement;
  private final AtomicLong hits = new AtomicLong();
  private final List<Runnable> held = new ArrayList<>();

  private FaultRule(Matcher m, Action action, Duration delay, int batch) {
    this(m, action, delay, batch, null);
  }

  private FaultRule(Matcher m, Action action, Duration delay, int batch, Response replacement) {
    this.replacement = replacement;
    this.direction = m.direction;
    this.target = m.target;
    this.cases = m.cases;
    this.predicate = m.predicate;
    this.answerPredicate = m.answerPredicate;
    this.limit = m.limit;
    this.action = action;
    this.delay = delay;
    this.batch = batch;
  }

  /** Starts a rule on requests. */
  public static Matcher requests() {
    return new Matcher(Direction.REQUEST);
  }

  /** Starts a rule on responses (matched by the request they answer). */
  public static Matcher responses() {
    return new Matcher(Direction.RESPONSE);
  }

  /** Makes {@code endpoint} unreachable in both directions. */
  public static FaultRule partition(Endpoint endpoint) {
    return new Matcher(Direction.BOTH).to(endpoint).partition();
  }

  public Action action() {
    return action;
  }

  public Direction direction() {
    return direction;
  }

  /** How many messages this rule has acted on so far. */
  public long hits() {
    return hits.get();
  }

  /** Messages currently held by a REORDER rule. */
  public synchronized int heldCount() {
    return held.size();
  }

  Duration delay() {
    return delay;
  }

  /** The answer a REPLACE rule delivers instead of the server's. */
  Response replacement() {
    return replacement;
  }

  /**
   * Whether this rule matches a message: a request ({@code response} null) or the response to
   * {@code request}. Does not count the message: see {@link #tryHit}.
   */
  boolean matches(Direction dir, Endpoint to, Request request, Response response) {
    if (direction != Direction.BOTH && direction != dir) {
      return false;
    }
    if (target != null && !target.equals(to)) {
      return false;
    }
    if (cases != null && !cases.contains(request.getPayloadCase())) {
      return false;
    }
    if (answerPredicate != null && (response == null || !answerPredicate.test(response))) {
      return false;
    }
    return predicate == null || predicate.test(request);
  }

  /** Counts one more message acted on; false (and nothing counted) once the limit is reached. */
  boolean tryHit() {
    while (true) {
      long h = hits.get();
      if (h >= limit) {
        return false;
      }
      if (hits.compareAndSet(h, h + 1)) {
        return true;
      }
    }
  }

  /** Holds {@code delivery}; once {@code batch} are held, runs them all in reverse order. */
  void hold(Runnable delivery) {
    List<Runnable> release = null;
    synchronized (this) {
      held.add(delivery);
      if (held.size() >= batch) {
        release = drainHeld();
      }
    }
    if (release != null) {
      release.forEach(Runnable::run);
    }
  }

  /** Releases every held message, in reverse arrival order. */
  public void releaseHeld() {
    List<Runnable> release;
    synchronized (this) {
      release = drainHeld();
    }
    release.forEach(Runnable::run);
  }

  private List<Runnable> drainHeld() {
    List<Runnable> release = new ArrayList<>(held.size());
    for (int i = held.size() - 1; i >= 0; i--) {
      release.add(held.get(i));
    }
    held.clear();
    return release;
  }

  @Override
  public String toString() {
    return action
        + " "
        + direction
        + (target == null ? "" : " to " + target)
        + (cases == null ? "" : " of " + cases)
        + (action == Action.DELAY ? " by " + delay.toMillis() + " ms" : "")
        + (answerPredicate == null ? "" : " (selected answers)")
        + (action == Action.REORDER ? " in batches of " + batch : "")
        + (limit == Long.MAX_VALUE ? "" : ", at most " + limit + " messages");
  }

  /** The matching half of a rule; one of the action methods finishes it. */
  public static final class Matcher {
    private final Direction direction;
    private Endpoint target;
    private Set<Request.PayloadCase> cases;
    private Predicate<Request> predicate;
    private Predicate<Response> answerPredicate;
    private long limit = Long.MAX_VALUE;

    private Matcher(Direction direction) {
      this.direction = direction;
    }

    /** Only messages to (or, for responses, from) the server at {@code endpoint}. */
    public Matcher to(Endpoint endpoint) {
      this.target = Objects.requireNonNull(endpoint);
      return this;
    }

    /** Only requests (or responses to requests) of these payload cases. */
    public Matcher ofCase(Request.PayloadCase first, Request.PayloadCase... more) {
      this.cases = EnumSet.of(first, more);
      return this;
    }

    /** Only requests (or responses to requests) satisfying {@code test}. */
    public Matcher when(Predicate<Request> test) {
      this.predicate = predicate == null ? test : predicate.and(test);
      return this;
    }

    /** Only responses satisfying {@code test} (a rule on requests with this never matches). */
    public Matcher whenAnswer(Predicate<Response> test) {
      if (direction != Direction.RESPONSE) {
        throw new IllegalStateException(
            "only a rule on responses can select them by their content");
      }
      this.answerPredicate = answerPredicate == null ? test : answerPredicate.and(test);
      return this;
    }

    /** Acts on the first {@code messages} matching messages only, then matches nothing. */
    public Matcher limit(long messages) {
      if (messages < 1) {
        throw new IllegalArgumentException(
            "a rule must act on at least 1 message, got " + messages);
      }
      this.limit = messages;
      return this;
    }

    public FaultRule drop() {
      return new FaultRule(this, Action.DROP, Duration.ZERO, 0);
    }

    public FaultRule delay(Duration by) {
      if (by.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative");
      }
      return new FaultRule(this, Action.DELAY, by, 0);
    }

    /** Holds matching messages until {@code batch} are held, then delivers them reversed. */
    public FaultRule reorder(int batch) {
      if (batch < 2) {
        throw new IllegalArgumentException(
            "reordering needs batches of at least 2 messages, got " + batch);
      }
      return new FaultRule(this, Action.REORDER, Duration.ZERO, batch);
    }

    /** Delivers each matching message twice. */
    public FaultRule duplicate() {
      return new FaultRule(this, Action.DUPLICATE, Duration.ZERO, 0);
    }

    /**
     * Delivers {@code answer} (its header replaced by the server's) instead of the server's answer
     * to each matching request, which the server has handled.
     */
    public FaultRule replaceWith(Response answer) {
      if (direction != Direction.RESPONSE) {
        throw new IllegalStateException("only a rule on responses can replace them");
      }
      return new FaultRule(this, Action.REPLACE, Duration.ZERO, 0, Objects.requireNonNull(answer));
    }

    public FaultRule partition() {
      if (limit != Long.MAX_VALUE || answerPredicate != null) {
        throw new IllegalStateException(
            "a partition cuts every message to an endpoint; it takes no limit or answer selection");
      }
      return new FaultRule(this, Action.PARTITION, Duration.ZERO, 0);
    }
  }
}
