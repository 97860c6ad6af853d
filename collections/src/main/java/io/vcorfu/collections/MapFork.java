package io.vcorfu.collections;

import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.collections.internal.CSMRMapLayout;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.List;
import java.util.Objects;

/**
 * Creates forks of {@link CSMRMap}s (see {@link CSMRMap#fork}): checks the name and the base, then
 * writes one record, the fork's layout (its bucket count, parent and base), to the fork's own
 * layout stream. Nothing of the parent is copied or written: the fork reads the parent's history
 * below its base where it already is.
 */
final class MapFork {
  private MapFork() {}

  /** See {@link CSMRMap#fork}. */
  static <K, V> CSMRMap<K, V> create(
      VCorfuRuntime rt, CSMRMap<K, V> parent, String name, long version) {
    Objects.requireNonNull(name, "name");
    if (rt.inTransaction()) {
      throw new IllegalStateException(
          "fork map '" + name + "' outside transactions: its creation is not transactional");
    }
    if (version < -1) {
      throw refused(
          ForkRefusedException.Reason.BASE_UNAVAILABLE,
          name,
          "a fork's base is a global address, -1 (before any write) or more, not " + version,
          null);
    }
    long tail = now(rt);
    if (version > tail) {
      throw refused(
          ForkRefusedException.Reason.BASE_PAST_TAIL,
          name,
          "cannot fork map '"
              + parent.name()
              + "' as of "
              + version
              + ": past the log's tail ("
              + tail
              + "); fork at or below it",
          null);
    }
    CSMRMapLayout layout = MapStreams.layout(rt, name);
    if (layout.buckets() != 0 || namedOtherwise(rt, name)) {
      throw taken(name, parent);
    }
    // Hold the parent's history before looking at the base: once held, what is readable now stays
    // readable, so a base found here is never trimmed away under the fork by any retention.
    String hold = holdName(name, version);
    List<StreamId> held = MapStreams.bucketStreams(parent.name(), parent.bucketCount());
    rt.pinHistory(held, hold);
    try {
      for (int i = 0; i < parent.bucketCount(); i++) {
        parent.bucketAt(i, version, true).snapshot();
      }
    } catch (RuntimeException e) {
      release(rt, held, hold, e);
      TrimmedException trimmed = trimmed(e);
      if (trimmed == null) {
        throw e;
      }
      throw refused(
          ForkRefusedException.Reason.BASE_UNAVAILABLE,
          name,
          "map '"
              + parent.name()
              + "' no longer holds its version "
              + version
              + " (trimmed below its retention); fork at a later version",
          trimmed);
    }
    // Listed before it is created, like every map (see NameDirectory).
    MapStreams.register(rt, name, parent.bucketCount());
    if (!layout.createFork(parent.bucketCount(), parent.name(), version)) {
      ForkRefusedException lost = taken(name, parent);
      // Another creation of the name won: its hold is this one only when it is this very fork.
      if (!(parent.name().equals(layout.parent()) && layout.base() == version)) {
        release(rt, held, hold, lost);
      }
      throw lost;
    }
    return CSMRMap.open(rt, name);
  }

  /** Releases a refused fork's hold; a release that fails is added to {@code refusal}. */
  private static void release(
      VCorfuRuntime rt, List<StreamId> held, String hold, RuntimeException refusal) {
    try {
      rt.unpinHistory(held, hold);
    } catch (RuntimeException e) {
      refusal.addSuppressed(e);
    }
  }

  /**
   * The name under which a fork called {@code name} with base {@code version} holds its parent's
   * history (see {@link VCorfuRuntime#pinHistory}): one per fork and base, so a refused attempt
   * releases only its own hold, and two creators racing for one name and base share theirs.
   */
  static String holdName(String name, long version) {
    return "fork " + name + " at " + version;
  }

  /** The current snapshot: what a transaction that writes nothing answers. */
  static long now(VCorfuRuntime rt) {
    rt.TXBegin();
    return rt.TXEnd();
  }

  /** True when the directory lists {@code name} as something other than a map. */
  private static boolean namedOtherwise(VCorfuRuntime rt, String name) {
    for (DirectoryEntry e : rt.names().list().join()) {
      if (e.name().equals(name) && !e.kind().equals(DirectoryEntry.MAP)) {
        return true;
      }
    }
    return false;
  }

  private static ForkRefusedException taken(String name, CSMRMap<?, ?> parent) {
    return refused(
        ForkRefusedException.Reason.NAME_TAKEN,
        name,
        "cannot fork map '" + parent.name() + "' as '" + name + "': that name is taken",
        null);
  }

  private static ForkRefusedException refused(
      ForkRefusedException.Reason reason, String name, String message, Throwable cause) {
    return new ForkRefusedException(reason, name, message, cause);
  }

  static TrimmedException trimmed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof TrimmedException te) {
        return te;
      }
    }
    return null;
  }
}
