package io.vcorfu.layout;

import io.vcorfu.protocol.Endpoint;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The rules every {@link Layout} obeys; each violation is a {@link LayoutException} sentence. */
final class LayoutValidator {
  private LayoutValidator() {}

  static void validate(String clusterId, long epoch, Endpoint sequencer, List<Segment> segments) {
    if (clusterId == null || clusterId.isBlank()) {
      throw new LayoutException("The layout has no clusterId; it must name the cluster.");
    }
    if (epoch < 0) {
      throw new LayoutException("The layout epoch is " + epoch + " but it must not be negative.");
    }
    if (sequencer == null) {
      throw new LayoutException("The layout names no sequencer.");
    }
    if (segments.isEmpty()) {
      throw new LayoutException("The layout has no segments; it needs at least one.");
    }
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      String where = "Segment " + i;
      if (s == null) {
        throw new LayoutException(where + " is null.");
      }
      if (s.start() < 0) {
        throw new LayoutException(where + " starts at " + s.start() + " but must start at >= 0.");
      }
      boolean last = i == segments.size() - 1;
      if (last && !s.isOpen()) {
        throw new LayoutException(
            where
                + " is the last segment and must be open-ended (end -1), but ends at "
                + s.end()
                + ".");
      }
      if (!last && s.isOpen()) {
        throw new LayoutException(
            where + " is open-ended (end -1) but only the last segment may be.");
      }
      if (!s.isOpen() && s.end() <= s.start()) {
        throw new LayoutException(
            where + " ends at " + s.end() + ", which is not after its start " + s.start() + ".");
      }
      if (i > 0) {
        long prevEnd = segments.get(i - 1).end();
        if (s.start() > prevEnd) {
          throw new LayoutException(
              "There is a gap between segment "
                  + (i - 1)
                  + " (ending at "
                  + prevEnd
                  + ") and segment "
                  + i
                  + " (starting at "
                  + s.start()
                  + "); addresses in between have no replicas.");
        }
        if (s.start() < prevEnd) {
          throw new LayoutException(
              "Segment "
                  + (i - 1)
                  + " (ending at "
                  + prevEnd
                  + ") overlaps segment "
                  + i
                  + " (starting at "
                  + s.start()
                  + ").");
        }
      }
      checkChains(where, "log", s.log());
      checkChains(where, "stream", s.stream());
    }
  }

  private static void checkChains(String where, String kind, List<List<Endpoint>> chains) {
    if (chains.isEmpty()) {
      throw new LayoutException(where + " has no " + kind + " chains; it needs at least one.");
    }
    for (int c = 0; c < chains.size(); c++) {
      List<Endpoint> chain = chains.get(c);
      if (chain.isEmpty()) {
        throw new LayoutException(where + " has an empty " + kind + " chain at index " + c + ".");
      }
      Set<Endpoint> seen = new HashSet<>();
      for (Endpoint e : chain) {
        if (e == null) {
          throw new LayoutException(
              where + " " + kind + " chain " + c + " contains a null endpoint.");
        }
        if (!seen.add(e)) {
          throw new LayoutException(
              where + " " + kind + " chain " + c + " lists " + e + " more than once.");
        }
      }
    }
  }
}
