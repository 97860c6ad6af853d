package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ChainChecks;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.ChainHead;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainReportMsg;
import io.vcorfu.protocol.proto.DamagedSlot;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code vcorfu log head} and {@code vcorfu log verify}: tamper evidence on the command line (see
 * {@link ChainDigests} and {@link ChainChecks}).
 */
final class LogVerify {
  private LogVerify() {}

  @Command(
      name = "head",
      mixinStandardHelpOptions = true,
      description =
          "Print a stream's chain head, STREAM@POSITION:HASH, at the highest position every"
              + " replica of its chain has decided (or at --at), once they all agree on it. Keep"
              + " the line where the cluster cannot change it; vcorfu log verify --pin checks"
              + " later that the stream up to it is unchanged.")
  static final class Head extends LogCommands.LogCommand {
    @Option(names = "--stream", required = true, description = "Stream name.")
    String stream;

    @Option(
        names = "--at",
        description = "Stream address to give the head at (default: the last decided everywhere).")
    Long at;

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
      Flags.notNegative(spec, "--at", at);
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      ChainHead head =
          connection.await(
              ChainChecks.head(log, StreamId.of(stream), at == null ? -1 : at),
              "asking the replicas for the chain head");
      if (output.json()) {
        out.println(
            Output.line(
                Output.mapper()
                    .createObjectNode()
                    .put("stream", stream)
                    .put("position", head.position())
                    .put("hash", ChainDigests.hex(head.hash()))
                    .put("pin", head.toString())));
      } else {
        out.println(head);
      }
      return 0;
    }
  }

  @Command(
      name = "verify",
      mixinStandardHelpOptions = true,
      description =
          "Check a stream on every replica of its chain (--stream), or everything every node"
              + " stores (--all): each entry's bytes against the SHA-256 digest stored when it was"
              + " written, each chain from its anchor, the replicas' heads against each other, and"
              + " with --pin a head printed earlier by vcorfu log head. Prints a line per replica"
              + " and one per damaged address; exits 1 when anything does not check.")
  static final class Verify extends LogCommands.LogCommand {
    @Option(names = "--stream", description = "Stream name.")
    String stream;

    @Option(names = "--all", description = "Check the log and every stream on every node.")
    boolean all;

    @Option(
        names = "--pin",
        paramLabel = "STREAM@POSITION:HASH",
        description = "A head printed by vcorfu log head: the stream up to it must be unchanged.")
    String pin;

    private ChainHead pinned;

    /** Names of the streams the reports name by id, from the name directory. */
    private final java.util.Map<StreamId, String> names = new java.util.HashMap<>();

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
      if (all == (stream != null)) {
        throw new ParameterException(
            spec.commandLine(), "give --stream NAME, or --all for everything the nodes store");
      }
      if (pin != null) {
        if (all) {
          throw new ParameterException(spec.commandLine(), "--pin checks one stream: use --stream");
        }
        try {
          pinned = ChainHead.parse(pin);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), "--pin: " + e.getMessage());
        }
        if (!pinned.stream().equals(StreamId.of(stream))) {
          throw new ParameterException(
              spec.commandLine(),
              "--pin is a head of stream '"
                  + pin.substring(0, pin.lastIndexOf('@'))
                  + "', not of '"
                  + stream
                  + "'");
        }
      }
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      List<ChainChecks.NodeReport> nodes =
          connection.await(
              all
                  ? ChainChecks.verifyAll(log)
                  : ChainChecks.verify(log, StreamId.of(stream), pinned),
              "the check");
      names.put(StreamId.NAME_DIRECTORY, "name directory");
      if (all) {
        try {
          for (DirectoryEntry e :
              connection.await(new NameDirectory(log).list(), "reading the name directory")) {
            names.putIfAbsent(e.stream(), e.name());
          }
        } catch (Exception unnamed) {
          // Streams are then shown by id.
        }
      }
      boolean clean = true;
      ArrayNode json = Output.mapper().createArrayNode();
      for (ChainChecks.NodeReport n : nodes) {
        if (n.failure() != null) {
          clean = false;
          String why = VcorfuCli.describe(n.failure());
          if (output.json()) {
            json.addObject().put("node", n.node().toString()).put("error", why);
          } else {
            out.println(n.node() + "  did not answer: " + why);
          }
          continue;
        }
        for (ChainReportMsg r : n.reports()) {
          clean &= r.getDamagedCount() == 0 && !r.getPin().equals("MISMATCH");
          if (output.json()) {
            json.add(json(n, r));
          } else {
            print(out, n, r);
          }
        }
      }
      String heads = all ? null : agree(log);
      clean &= heads == null || !heads.startsWith("replicas disagree");
      if (output.json()) {
        ObjectNode whole = Output.mapper().createObjectNode();
        whole.set("reports", json);
        if (heads != null) {
          whole.put("heads", heads);
        }
        out.println(Output.line(whole));
      } else if (heads != null) {
        out.println(heads);
      }
      return clean ? 0 : 1;
    }

    /**
     * Compares the replicas' heads at the highest position all have decided: the line saying
     * whether they agree ("replicas disagree: ..." when they do not).
     */
    private String agree(ClusterStreamLog log) throws Exception {
      try {
        ChainHead h =
            connection.await(
                ChainChecks.head(log, StreamId.of(stream), -1), "comparing the replicas' heads");
        return "replicas agree on the head " + h;
      } catch (ChainChecks.DisagreementException e) {
        return "replicas disagree: " + e.getMessage();
      } catch (IllegalStateException e) {
        return "heads not compared: " + e.getMessage();
      }
    }

    private String name(ChainReportMsg r) {
      if (!r.hasStream()) {
        return "log";
      }
      StreamId id = StreamId.fromMsg(r.getStream());
      String name = id.name() != null ? id.name() : names.get(id);
      return "stream " + (name != null ? name : id.toString());
    }

    private void print(PrintWriter out, ChainChecks.NodeReport n, ChainReportMsg r) {
      StringBuilder line =
          new StringBuilder()
              .append(n.node())
              .append("  ")
              .append(name(r))
              .append(": ")
              .append(r.getChecked())
              .append(" entries checked, ")
              .append(r.getDamagedCount())
              .append(" damaged");
      if (r.hasStream()) {
        line.append(", chain ")
            .append(r.getAnchored() ? "to " + r.getHeadPosition() : "not anchored below")
            .append(" (")
            .append(r.getStop().toLowerCase(java.util.Locale.ROOT))
            .append(" after)");
      }
      if (!r.getPin().equals("NONE")) {
        line.append(", pin ").append(r.getPin().toLowerCase(java.util.Locale.ROOT));
      }
      out.println(line);
      for (DamagedSlot d : r.getDamagedList()) {
        out.println("  damaged: " + name(r) + " address " + d.getAddress() + ": " + d.getReason());
      }
    }

    private ObjectNode json(ChainChecks.NodeReport n, ChainReportMsg r) {
      ObjectNode o =
          Output.mapper()
              .createObjectNode()
              .put("node", n.node().toString())
              .put("what", name(r))
              .put("checked", r.getChecked())
              .put("trimMark", r.getTrimMark())
              .put("anchored", r.getAnchored())
              .put("headPosition", r.getHeadPosition())
              .put("head", ChainDigests.hex(r.getHead().toByteArray()))
              .put("stop", r.getStop())
              .put("pin", r.getPin());
      ArrayNode damaged = o.putArray("damaged");
      for (DamagedSlot d : r.getDamagedList()) {
        damaged.addObject().put("address", d.getAddress()).put("reason", d.getReason());
      }
      return o;
    }
  }
}
