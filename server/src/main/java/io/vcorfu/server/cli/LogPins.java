package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.StreamPinMsg;
import io.vcorfu.protocol.proto.StreamTailEntry;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.checkpoint.Checkpoints;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu log pin}, {@code unpin} and {@code pins}: holds on a stream's history on the
 * command line (see {@code StreamLog.pinStream} and {@code VCorfuRuntime.pinHistory}, whose holds
 * these are: a name here is the same hold as that name given to {@code pinHistory}).
 */
final class LogPins {
  private LogPins() {}

  private static StreamId pinOf(String name) {
    return VCorfuRuntime.holdPin(name);
  }

  abstract static class Named extends LogCommands.LogCommand {
    @Option(names = "--stream", required = true, description = "Stream name.")
    String stream;

    @Option(
        names = "--name",
        required = true,
        description = "The hold's name (a fork's is \"fork NAME at BASE\").")
    String name;

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
      Flags.name(spec, "--name", name);
    }

    /** Prints {@code text}, or with --output json the stream, the name and {@code field}. */
    void say(PrintWriter out, String field, Object value, String text) {
      if (!output.json()) {
        out.println(text);
        return;
      }
      ObjectNode o = Output.mapper().createObjectNode().put("stream", stream).put("name", name);
      o.set(field, Output.mapper().valueToTree(value));
      out.println(Output.line(o));
    }
  }

  @Command(
      name = "pin",
      mixinStandardHelpOptions = true,
      description =
          "Hold --stream's history (and its checkpoints') as it can be read now, under --name: no"
              + " trim passes it, whoever asks, until vcorfu log unpin of that name. Prints where"
              + " the stream is held.")
  static final class Pin extends Named {
    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      StreamId id = StreamId.of(stream);
      long at;
      try {
        at = connection.await(log.pinStream(id, pinOf(name)), "pinning the stream");
        connection.await(
            log.pinStream(Checkpoints.streamOf(id), pinOf(name)), "pinning its checkpoints");
      } catch (TrimmedException raced) {
        throw new IllegalStateException(
            "stream '" + stream + "' kept being trimmed while it was pinned; try again", raced);
      }
      say(out, "at", at, stream + " held from address " + at + " as '" + name + "'");
      return 0;
    }
  }

  @Command(
      name = "unpin",
      mixinStandardHelpOptions = true,
      description =
          "Release the hold --name on --stream (and its checkpoints): trims may pass where it"
              + " held. Releasing a hold that is not there does nothing.")
  static final class Unpin extends Named {
    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      StreamId id = StreamId.of(stream);
      connection.await(log.unpinStream(id, pinOf(name)), "unpinning the stream");
      connection.await(
          log.unpinStream(Checkpoints.streamOf(id), pinOf(name)), "unpinning its checkpoints");
      say(out, "released", true, stream + ": hold '" + name + "' released");
      return 0;
    }
  }

  @Command(
      name = "pins",
      mixinStandardHelpOptions = true,
      description =
          "List, per replica of --stream's chain, its trim mark and the pins holding it (by pin"
              + " id; with --name, which one is that hold).")
  static final class Pins extends LogCommands.LogCommand {
    @Option(names = "--stream", required = true, description = "Stream name.")
    String stream;

    @Option(names = "--name", description = "Mark the pin of the hold of this name.")
    String name;

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
      if (name != null) {
        Flags.name(spec, "--name", name);
      }
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      StreamId id = StreamId.of(stream);
      StreamId mine = name == null ? null : pinOf(name);
      List<Endpoint> chain = log.layout().current().streamChain(id);
      ArrayNode replicas = Output.mapper().createArrayNode();
      for (Endpoint replica : chain) {
        StreamTailEntry t =
            connection
                .await(log.ops().streamTail(replica, List.of(id), false), "asking " + replica)
                .getTails(0);
        ObjectNode r = replicas.addObject().put("replica", replica.toString());
        r.put("trimMark", t.getTrimMark());
        ArrayNode pins = r.putArray("pins");
        StringBuilder line =
            new StringBuilder(replica + "  trimmed below " + t.getTrimMark() + "  pins:");
        if (t.getPinsCount() == 0) {
          line.append(" none");
        }
        for (StreamPinMsg p : t.getPinsList()) {
          StreamId pin = StreamId.fromMsg(p.getPin());
          boolean named = pin.equals(mine);
          ObjectNode o = pins.addObject().put("pin", pin.toString()).put("at", p.getAt());
          if (named) {
            o.put("name", name);
          }
          line.append(' ').append(named ? "'" + name + "'" : pin).append('@').append(p.getAt());
        }
        if (!output.json()) {
          out.println(line);
        }
      }
      if (output.json()) {
        ObjectNode o = Output.mapper().createObjectNode().put("stream", stream);
        o.set("replicas", replicas);
        out.println(Output.line(o));
      }
      return 0;
    }
  }
}
