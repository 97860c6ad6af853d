package io.vcorfu.server.cli;

import io.vcorfu.layout.Layout;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** What one node's probe said. */
record NodeState(String state, String detail, PingResponse ping) {
  static NodeState of(Layout layout, Endpoint node, CompletableFuture<PingResponse> ping) {
    if (ping == null) {
      return new NodeState(
          "removed", layout.retired().contains(node) ? "left on request" : "", null);
    }
    try {
      PingResponse p = ping.join();
      if (layout.spares().contains(node)) {
        return new NodeState("spare", "answering", p);
      }
      Endpoint replaces = layout.replacing().get(node);
      if (layout.isRebuilding(node) && p.getServing()) {
        var joined = layout.rebuildingChains().get(node);
        return new NodeState(
            "rebuilding",
            (replaces == null ? "" : "replacing " + replaces + ": ")
                + (joined == null
                    ? ""
                    : "serving its other chains, rebuilding "
                        + String.join(", ", ClusterStatusCommand.chainNames(joined))
                        + ": ")
                + progress(p.getRebuild()),
            p);
      }
      if (p.getServing() && p.getTakeover().getSinceEpoch() > 0) {
        var t = p.getTakeover();
        return new NodeState(
            "serving",
            "epoch "
                + p.getEpoch()
                + "; copying the streams of the chains it took up at epoch "
                + t.getSinceEpoch()
                + " from the log, their reads served from the log meanwhile: "
                + t.getEntriesCopied()
                + " slots copied ("
                + String.format(java.util.Locale.ROOT, "%.1f", t.getBytesCopied() / 1048576.0)
                + " MiB), "
                + String.format(java.util.Locale.ROOT, "%.1f", t.getBytesPerSecond() / 1048576.0)
                + " MiB/s",
            p);
      }
      if (p.getServing() && layout.draining().contains(node)) {
        long places = layout.places(node);
        return new NodeState(
            "serving",
            "epoch "
                + p.getEpoch()
                + "; leaving on request: the other nodes take its "
                + places
                + " remaining places, one node at a time",
            p);
      }
      if (p.getServing()) {
        for (var e : layout.replacing().entrySet()) {
          if (e.getValue().equals(node)) {
            return new NodeState(
                "serving",
                "epoch " + p.getEpoch() + "; leaving once " + e.getKey() + " is promoted",
                p);
          }
        }
        return new NodeState("serving", "epoch " + p.getEpoch(), p);
      }
      return new NodeState(
          p.getUntrusted() ? "untrusted" : "not-serving", p.getNotServingReason(), p);
    } catch (CompletionException e) {
      return new NodeState("unresponsive", VcorfuCli.describe(e.getCause()), null);
    }
  }

  /** A rebuild's progress for people: slots and bytes copied, rate, time left. */
  static String progress(io.vcorfu.protocol.proto.RebuildProgress r) {
    if (r.getSinceEpoch() == 0) {
      return "copy not started yet";
    }
    String copied =
        r.getEntriesCopied()
            + " slots copied ("
            + String.format(java.util.Locale.ROOT, "%.1f", r.getBytesCopied() / 1048576.0)
            + " MiB), "
            + r.getEntriesHeld()
            + " held already";
    if (r.getDone()) {
      return copied + "; copy done at epoch " + r.getEpoch() + ", awaiting promotion";
    }
    return copied
        + ", "
        + r.getEntriesLeft()
        + " left, "
        + String.format(java.util.Locale.ROOT, "%.1f", r.getBytesPerSecond() / 1048576.0)
        + " MiB/s"
        + (r.getRateLimitBytesPerSecond() > 0
            ? String.format(
                java.util.Locale.ROOT,
                " (limit %.1f MiB/s, foreground p99 %.1f ms)",
                r.getRateLimitBytesPerSecond() / 1048576.0,
                r.getForegroundP99Micros() / 1000.0)
            : "")
        + (r.getSecondsLeft() >= 0
            ? String.format(java.util.Locale.ROOT, ", about %.0f s left", r.getSecondsLeft())
            : "")
        + (r.getLastError().isEmpty() ? "" : "; last attempt failed: " + r.getLastError());
  }
}
