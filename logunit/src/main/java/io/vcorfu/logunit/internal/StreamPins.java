package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pins of a namespace: named floors its trims never pass. A pin {@code (name, at)} holds every
 * position at or above {@code at}: while it is held, {@link StorageEngine#trim} raises the mark to
 * at most {@code at} (a trim asking for more stops there). A fork of an object pins the streams its
 * base is read from, so that the parent's retention never takes the fork's history away.
 *
 * <p>Invariant: a pin is recorded only while the namespace's trim mark is at or below its position,
 * and no trim passes a recorded pin, so everything a pin covered when it was recorded stays until
 * it is released. Pins are durable in the namespace's marks record (with a version that only rises,
 * repeated in every new segment like the trim mark), so they survive restarts, segment rolls and
 * compaction; a replica rebuilt from its chain takes the chain's pins ({@link #adopt}).
 *
 * <p>Every method runs under the engine's monitor; a change is durable once the engine's next
 * barrier completes.
 */
public final class StreamPins {
  private StreamPins() {}

  /**
   * Records pin {@code name} of {@code ns} at {@code at} (replacing its earlier position); returns
   * the trim mark. Refused with {@link TrimmedException} (nothing recorded) when the trim mark is
   * already above {@code at}.
   */
  public static long pin(StorageEngine engine, StreamId ns, StreamId name, long at) {
    synchronized (engine) {
      NamespaceIndex n = engine.index().namespace(ns);
      if (n.trimMark > at) {
        throw new TrimmedException(n.trimMark, ns);
      }
      Map<StreamId, Long> pins = held(n);
      Long before = pins.put(name, at);
      if (before == null || before != at) {
        write(engine, n, pins);
      }
      return n.trimMark;
    }
  }

  /** Drops pin {@code name} of {@code ns} when it is held; returns the trim mark. */
  public static long release(StorageEngine engine, StreamId ns, StreamId name) {
    synchronized (engine) {
      if (!engine.index().knows(ns)) {
        return 0;
      }
      NamespaceIndex n = engine.index().namespace(ns);
      Map<StreamId, Long> pins = held(n);
      if (pins.remove(name) != null) {
        write(engine, n, pins);
      }
      return n.trimMark;
    }
  }

  /**
   * Takes the pins {@code chain} a chain's replica holds for {@code ns} (a rebuilt replica takes
   * its chain's), keeping any this one holds besides; a pin held on both keeps the lower position.
   */
  public static void adopt(StorageEngine engine, StreamId ns, Map<StreamId, Long> chain) {
    if (chain.isEmpty()) {
      return;
    }
    synchronized (engine) {
      NamespaceIndex n = engine.index().namespace(ns);
      Map<StreamId, Long> pins = held(n);
      boolean changed = false;
      for (Map.Entry<StreamId, Long> p : chain.entrySet()) {
        Long mine = pins.get(p.getKey());
        if (mine == null || mine > p.getValue()) {
          pins.put(p.getKey(), p.getValue());
          changed = true;
        }
      }
      if (changed) {
        write(engine, n, pins);
      }
    }
  }

  /** The pins held on {@code ns}, by name, in the order they were recorded. */
  public static Map<StreamId, Long> of(StorageEngine engine, StreamId ns) {
    synchronized (engine) {
      return engine.index().knows(ns) ? held(engine.index().namespace(ns)) : new LinkedHashMap<>();
    }
  }

  /** {@code before}, lowered to the lowest pin of {@code n} when that is lower. */
  static long clamp(NamespaceIndex n, long before) {
    long[] p = n.pins;
    if (p == null) {
      return before;
    }
    for (int i = 2; i < p.length; i += 3) {
      before = Math.min(before, p[i]);
    }
    return before;
  }

  private static Map<StreamId, Long> held(NamespaceIndex n) {
    Map<StreamId, Long> pins = new LinkedHashMap<>();
    long[] p = n.pins;
    for (int i = 0; p != null && i + 2 < p.length; i += 3) {
      pins.put(new StreamId(p[i], p[i + 1]), p[i + 2]);
    }
    return pins;
  }

  private static void write(StorageEngine engine, NamespaceIndex n, Map<StreamId, Long> pins) {
    long[] flat = new long[pins.size() * 3];
    int i = 0;
    for (Map.Entry<StreamId, Long> p : pins.entrySet()) {
      flat[i++] = p.getKey().msb();
      flat[i++] = p.getKey().lsb();
      flat[i++] = p.getValue();
    }
    engine.log(SegmentRecord.marksOf(n, engine.index().maxGlobal()).pins(n.pinsVersion + 1, flat));
  }
}
