package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code vcorfu log ...}: append to, read, tail, follow and trim streams and the global log. */
@Command(
    name = "log",
    mixinStandardHelpOptions = true,
    description =
        "Append to, read, tail, follow, trim and hold streams and the global log; give and"
            + " check streams' chain heads; list the streams.")
final class LogCommands {
  /**
   * The commands under {@code vcorfu log}, in the order its help lists them (added when the command
   * line is made, so that a one-shot run builds only the one it runs; see {@link VcorfuCli}).
   */
  static final java.util.List<Class<?>> SUBCOMMANDS =
      java.util.List.of(
          LogCommands.Append.class,
          LogCommands.Read.class,
          LogCommands.Tail.class,
          LogFollow.class,
          LogCommands.Trim.class,
          LogPins.Pin.class,
          LogPins.Unpin.class,
          LogPins.Pins.class,
          LogVerify.Head.class,
          LogVerify.Verify.class,
          ListCommands.Logs.class);

  private LogCommands() {}

  abstract static class LogCommand implements Callable<Integer> {
    @Mixin Connection connection = new Connection();
    @Mixin Output output = new Output();
    @Spec CommandSpec spec;

    abstract int run(ClusterStreamLog log, PrintWriter out) throws Exception;

    /** Refuses option values the command cannot use (see {@link Flags}), before it connects. */
    void check() {}

    @Override
    public Integer call() throws Exception {
      check();
      try (ShellSession.Held<ClusterStreamLog> log = connection.log()) {
        PrintWriter out = spec.commandLine().getOut();
        int code = run(log.get(), out);
        out.flush();
        return code;
      }
    }

    /**
     * Where a read of {@code stream} from {@code next} that found it trimmed goes on: at the trim
     * mark, said on standard error ("HOW from there"); {@code t} again when the mark is not past
     * {@code next}.
     */
    long pastTrim(TrimmedException t, String stream, long next, String how) {
      if (t.trimMark() <= next) {
        throw t;
      }
      spec.commandLine()
          .getErr()
          .println(
              "vcorfu: stream '"
                  + stream
                  + "' is trimmed below address "
                  + t.trimMark()
                  + "; "
                  + how
                  + " from there");
      return t.trimMark();
    }

    /** The stream's tail; {@link NotFoundException} when it was never written. */
    long tailOf(ClusterStreamLog log, String stream) throws Exception {
      StreamId id = StreamId.of(stream);
      long tail =
          connection.await(log.tails(List.of(id)), "reading the tail").streamTails().get(id);
      if (tail < 0) {
        throw new NotFoundException("stream '" + stream + "' has never been written");
      }
      return tail;
    }
  }

  @Command(
      name = "append",
      mixinStandardHelpOptions = true,
      description =
          "Append VALUE atomically to every --stream; prints the global address and each stream"
              + " address. An entry holds at most 4 MiB, headers included.")
  static final class Append extends LogCommand {
    @Option(
        names = "--stream",
        required = true,
        description = "Stream name (repeat for an atomic multi-stream append).")
    List<String> streams = new ArrayList<>();

    @Parameters(
        index = "0",
        arity = "0..1",
        paramLabel = "VALUE",
        description = "The value as UTF-8 text; - reads it from standard input.")
    String value;

    @Option(
        names = "--value-file",
        paramLabel = "FILE",
        description = "Read the value's bytes from FILE (- for standard input) instead.")
    Path valueFile;

    @Override
    void check() {
      streams.forEach(s -> Flags.name(spec, "--stream", s));
      Flags.readableFile(spec, "--value-file", valueFile);
      Values.notShellInput(spec, value, valueFile);
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      byte[] bytes = Values.read(spec, value, valueFile);
      List<StreamId> ids = streams.stream().map(StreamId::of).toList();
      int max = connection.options().maxEntryBytes();
      if (bytes.length > max) {
        // Refused before the names are listed: nothing is written.
        throw new io.vcorfu.protocol.TooLargeException(bytes.length, max);
      }
      // Listed before the first write under them (only a name not listed yet costs a write).
      NameDirectory names = new NameDirectory(log);
      for (int i = 0; i < ids.size(); i++) {
        connection.await(
            names.register(
                DirectoryEntry.of(DirectoryEntry.LOG, streams.get(i), "", ids.get(i), 0)),
            "listing the stream's name");
      }
      AppendResult r = connection.await(log.append(ids, bytes), "the append");
      if (output.json()) {
        ObjectNode n = Output.mapper().createObjectNode();
        n.put("global", r.globalAddress());
        ObjectNode slots = n.putObject("streams");
        for (int i = 0; i < ids.size(); i++) {
          slots.put(streams.get(i), r.streamAddresses().get(ids.get(i)));
        }
        out.println(Output.line(n));
        return 0;
      }
      out.println("global " + r.globalAddress());
      for (int i = 0; i < ids.size(); i++) {
        out.println(
            Output.escape(streams.get(i).getBytes(StandardCharsets.UTF_8))
                + " "
                + r.streamAddresses().get(ids.get(i)));
      }
      return 0;
    }
  }

  @Command(
      name = "read",
      mixinStandardHelpOptions = true,
      description =
          "Read a stream (STREAM_ADDRESS GLOBAL_ADDRESS VALUE per line) or the global log"
              + " (--global: GLOBAL_ADDRESS VALUE, or HOLE). Values are escaped (\\n, \\t, \\\\,"
              + " \\xNN), so every entry is one line. A stream trimmed below --from is read from"
              + " its trim mark on.")
  static final class Read extends LogCommand {
    @Option(names = "--stream", description = "Stream name.")
    String stream;

    @Option(names = "--global", description = "Read the global log by address.")
    boolean global;

    @Option(names = "--from", defaultValue = "0", description = "First address (default 0).")
    long from;

    @Option(names = "--to", description = "Last address, inclusive (default: the tail).")
    Long to;

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
      Flags.notNegative(spec, "--from", from);
      Flags.notNegative(spec, "--to", to);
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      if (global == (stream != null)) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "give exactly one of --stream NAME or --global");
      }
      if (global) {
        long end =
            to != null
                ? to
                : connection.await(log.tails(List.of()), "reading the tail").globalTail();
        for (long start = from; start <= end; start += 4096) {
          for (GlobalEntry e :
              connection.await(
                  log.readGlobalRange(start, Math.min(end, start + 4095)), "the read")) {
            print(out, e);
          }
        }
        return 0;
      }
      StreamId id = StreamId.of(stream);
      long tail = tailOf(log, stream);
      long end = to != null ? Math.min(to, tail) : tail;
      long start = from;
      while (start <= end) {
        List<StreamEntry> page;
        try {
          page = connection.await(log.readStream(id, start, Math.min(end, start + 4095)), "read");
        } catch (TrimmedException t) {
          start = pastTrim(t, stream, start, "reading");
          continue;
        }
        for (StreamEntry e : page) {
          if (!e.isHole()) {
            print(out, e);
          }
        }
        start += 4096;
      }
      return 0;
    }

    private void print(PrintWriter out, GlobalEntry e) {
      if (output.json()) {
        ObjectNode n = Output.mapper().createObjectNode();
        n.put("global", e.globalAddress());
        n.put("hole", e.isHole());
        if (!e.isHole()) {
          ObjectNode slots = n.putObject("streams");
          e.streamAddresses().forEach((s, a) -> slots.put(s.toString(), a));
          Output.putValue(n, e.payload());
        }
        out.println(Output.line(n));
        return;
      }
      out.println(e.globalAddress() + " " + (e.isHole() ? "HOLE" : Output.escape(e.payload())));
    }

    private void print(PrintWriter out, StreamEntry e) {
      printEntry(out, output.json(), e);
    }
  }

  /**
   * A stream entry as {@code log read} and {@code log follow} print it: {@code STREAM_ADDRESS
   * GLOBAL_ADDRESS VALUE} (the value escaped), or one JSON object.
   */
  static void printEntry(PrintWriter out, boolean json, StreamEntry e) {
    if (json) {
      ObjectNode n = Output.mapper().createObjectNode();
      n.put("address", e.streamAddress());
      n.put("global", e.globalAddress());
      Output.putValue(n, e.payload());
      out.println(Output.line(n));
      return;
    }
    out.println(e.streamAddress() + " " + e.globalAddress() + " " + Output.escape(e.payload()));
  }

  @Command(
      name = "tail",
      mixinStandardHelpOptions = true,
      description = "Print the global tail, or a stream's tail with --stream.")
  static final class Tail extends LogCommand {
    @Option(names = "--stream", description = "Stream name.")
    String stream;

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      if (stream == null) {
        long g = connection.await(log.tails(List.of()), "reading the tail").globalTail();
        out.println(
            output.json()
                ? Output.line(Output.mapper().createObjectNode().put("global", g))
                : "global " + g);
        return 0;
      }
      StreamId id = StreamId.of(stream);
      Tails t = connection.await(log.tails(List.of(id)), "reading the tail");
      long tail = t.streamTails().get(id);
      long last = t.streamLastGlobal().get(id);
      if (output.json()) {
        out.println(
            Output.line(
                Output.mapper()
                    .createObjectNode()
                    .put("stream", stream)
                    .put("tail", tail)
                    .put("lastGlobal", last)));
        return 0;
      }
      out.println(
          Output.escape(stream.getBytes(StandardCharsets.UTF_8)) + " " + tail + " global " + last);
      return 0;
    }
  }

  @Command(
      name = "trim",
      mixinStandardHelpOptions = true,
      description = "Release every entry of --stream below stream address --before.")
  static final class Trim extends LogCommand {
    @Option(names = "--stream", required = true, description = "Stream name.")
    String stream;

    @Option(
        names = "--before",
        required = true,
        paramLabel = "ADDRESS",
        description =
            "Every entry below this stream address is released; it may be at most the stream's"
                + " tail + 1, and the trim mark never moves back.")
    long before;

    @Override
    void check() {
      Flags.name(spec, "--stream", stream);
      Flags.notNegative(spec, "--before", before);
    }

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      StreamId id = StreamId.of(stream);
      long mark;
      try {
        mark = connection.await(log.trimStream(id, before), "the trim");
      } catch (io.vcorfu.protocol.BadRequestException refused) {
        // The replica names the stream by its id; the user named it.
        throw new IllegalArgumentException(
            refused.getMessage().replace("stream " + id, "stream '" + stream + "'"), refused);
      } catch (io.vcorfu.protocol.UnknownStreamException unknown) {
        throw new NotFoundException("stream '" + stream + "' has never been written");
      }
      if (output.json()) {
        out.println(
            Output.line(
                Output.mapper().createObjectNode().put("stream", stream).put("trimMark", mark)));
        return 0;
      }
      out.println(
          stream
              + " trimmed below "
              + mark
              + (mark < before
                  ? " (held there; see vcorfu log pins --stream " + stream + ")"
                  : ""));
      return 0;
    }
  }
}
