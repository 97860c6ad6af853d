package io.vcorfu.protocol;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lifecycle of a server or role, checked on every change: a transition not in the table throws
 * {@link IllegalStateException} naming both states.
 *
 * <pre>
 * NEW -> STARTING | CLOSING | CLOSED
 * STARTING -> RUNNING | CLOSING | EXCEPTION
 * RUNNING -> CLOSING | EXCEPTION
 * EXCEPTION -> CLOSING | CLOSED
 * CLOSING -> CLOSED | EXCEPTION
 * CLOSED -> (none)
 * </pre>
 *
 * Thread-safe: the state is one atomic reference and transitions are compare-and-set.
 */
public final class LifeCycle {

  /** The states of a lifecycle. */
  public enum State {
    NEW,
    STARTING,
    RUNNING,
    CLOSING,
    CLOSED,
    EXCEPTION;

    /** True if {@code to} may directly follow this state. */
    public boolean canTransitionTo(State to) {
      return TRANSITIONS.get(this).contains(to);
    }
  }

  private static final Map<State, Set<State>> TRANSITIONS =
      Map.of(
          State.NEW, EnumSet.of(State.STARTING, State.CLOSING, State.CLOSED),
          State.STARTING, EnumSet.of(State.RUNNING, State.CLOSING, State.EXCEPTION),
          State.RUNNING, EnumSet.of(State.CLOSING, State.EXCEPTION),
          State.EXCEPTION, EnumSet.of(State.CLOSING, State.CLOSED),
          State.CLOSING, EnumSet.of(State.CLOSED, State.EXCEPTION),
          State.CLOSED, EnumSet.noneOf(State.class));

  private final String name;
  private final AtomicReference<State> current = new AtomicReference<>(State.NEW);

  /** A lifecycle in state NEW; {@code name} appears in error messages. */
  public LifeCycle(String name) {
    this.name = name;
  }

  public State get() {
    return current.get();
  }

  /**
   * Moves to {@code to} from whatever the current state is.
   *
   * @throws IllegalStateException if the table does not allow current -> {@code to}
   */
  public void transition(State to) {
    while (true) {
      State from = current.get();
      check(from, to);
      if (current.compareAndSet(from, to)) {
        return;
      }
    }
  }

  /**
   * Moves from {@code from} to {@code to} if the current state is {@code from}.
   *
   * @return false if the current state is not {@code from} (nothing changes)
   * @throws IllegalStateException if the table does not allow {@code from} -> {@code to}
   */
  public boolean compareAndTransition(State from, State to) {
    check(from, to);
    return current.compareAndSet(from, to);
  }

  /**
   * Moves to CLOSING unless already CLOSING or CLOSED.
   *
   * @return true if this call started closing (the caller should release resources, then move to
   *     CLOSED)
   */
  public boolean startClosing() {
    while (true) {
      State from = current.get();
      if (from == State.CLOSING || from == State.CLOSED) {
        return false;
      }
      if (current.compareAndSet(from, State.CLOSING)) {
        return true;
      }
    }
  }

  /**
   * Throws unless the current state is one of {@code expected}.
   *
   * @throws IllegalStateException naming the current and the expected states
   */
  public void assertCurrent(State... expected) {
    State now = current.get();
    for (State s : expected) {
      if (s == now) {
        return;
      }
    }
    throw new IllegalStateException(
        name + " is " + now + " but must be one of " + Arrays.toString(expected));
  }

  private void check(State from, State to) {
    if (!from.canTransitionTo(to)) {
      throw new IllegalStateException(
          name
              + " cannot move from "
              + from
              + " to "
              + to
              + " (allowed: "
              + TRANSITIONS.get(from)
              + ")");
    }
  }

  @Override
  public String toString() {
    return name + ":" + current.get();
  }
}
