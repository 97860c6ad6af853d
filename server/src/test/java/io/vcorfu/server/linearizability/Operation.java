package io.vcorfu.server.linearizability;

import java.util.Objects;

/**
 * One call on a register in a recorded history: a {@code get} that returned {@link #value}, or a
 * {@code set(value)}, with the times it was invoked and returned on a clock shared by every process
 * of the history. A call that did not complete (it failed or timed out) is <em>pending</em>: it may
 * have taken effect at any time after its invocation, or never.
 *
 * <p>Times are {@code System.nanoTime()} readings. On Linux that is {@code CLOCK_MONOTONIC}, one
 * clock for every process of the machine (since boot), so readings from different JVMs on the same
 * machine compare directly; the multi-process tests check that with a handshake before using it.
 *
 * @param process the process (and thread) that made the call, for diagnostics
 * @param key the register
 * @param kind get or set
 * @param value the value a get returned, or the value set; null is the register's initial value
 * @param invoked when the call began
 * @param returned when it returned, or {@link #PENDING}
 */
public record Operation(
    String process, String key, Kind kind, String value, long invoked, long returned) {
  /** The return time of a call that did not complete. */
  public static final long PENDING = Long.MAX_VALUE;

  private static final String NULL = "-";

  /** A register operation. */
  public enum Kind {
    GET,
    SET
  }

  public Operation {
    Objects.requireNonNull(process, "process");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(kind, "kind");
    if (returned < invoked) {
      throw new IllegalArgumentException(
          "an operation cannot return (" + returned + ") before it is invoked (" + invoked + ")");
    }
  }

  public static Operation get(
      String process, String key, String returnedValue, long invoked, long returned) {
    return new Operation(process, key, Kind.GET, returnedValue, invoked, returned);
  }

  public static Operation set(
      String process, String key, String value, long invoked, long returned) {
    return new Operation(process, key, Kind.SET, value, invoked, returned);
  }

  public boolean pending() {
    return returned == PENDING;
  }

  /** True if this call returned before {@code other} was invoked (so it must be ordered first). */
  public boolean precedes(Operation other) {
    return returned < other.invoked;
  }

  /** One line, without spaces inside fields: {@code process key kind value invoked returned}. */
  public String format() {
    return String.join(
        " ",
        process,
        key,
        kind.name(),
        value == null ? NULL : value,
        Long.toString(invoked),
        pending() ? "pending" : Long.toString(returned));
  }

  /** Parses a line written by {@link #format}. */
  public static Operation parse(String line) {
    String[] f = line.trim().split(" ");
    if (f.length != 6) {
      throw new IllegalArgumentException(
          "a history line has 6 fields, got " + f.length + ": " + line);
    }
    return new Operation(
        f[0],
        f[1],
        Kind.valueOf(f[2]),
        f[3].equals(NULL) ? null : f[3],
        Long.parseLong(f[4]),
        f[5].equals("pending") ? PENDING : Long.parseLong(f[5]));
  }

  @Override
  public String toString() {
    String v = value == null ? "(initial)" : value;
    return process
        + " "
        + (kind == Kind.GET ? "get() -> " + v : "set(" + v + ")")
        + " on "
        + key
        + " ["
        + invoked
        + ", "
        + (pending() ? "pending" : Long.toString(returned))
        + "]";
  }
}
