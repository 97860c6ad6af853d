package io.vcorfu.server.cli;

import io.vcorfu.client.AppendResult;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.GlobalEntry;
import io.vcorfu.client.StreamEntry;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.Tails;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.netty.NettyTransport;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code vcorfu log ...}: append to, read, tail and trim streams and the global log. */
@Command(
    name = "log",
    description = "Append to, read, tail and trim streams and the global log.",
    subcommands = {
      LogCommands.Append.class,
      LogCommands.Read.class,
      LogCommands.Tail.class,
      LogCommands.Trim.class
    })
final class LogCommands {

  private LogCommands() {}

  /** Options shared by every log subcommand. */
  static class Connection {
    @Option(
        names = "--endpoint",
        defaultValue = "127.0.0.1:9000",
        paramLabel = "H:P[,H:P...]",
        description =
            "A node of the cluster, or several separated by commas, asked in order until one"
                + " answers (default ${DEFAULT-VALUE}).")
    String endpoint;

    ClusterStreamLog open(NettyTransport transport) {
      return ClusterStreamLog.connect(
          transport, Endpoint.parseList(endpoint), StreamLogOptions.defaults());
    }
  }

  abstract static class LogCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin Connection connection = new Connection();
    @Spec CommandSpec spec;

    abstract int run(ClusterStreamLog log, PrintWriter out) throws Exception;

    @Override
    public Integer call() throws Exception {
      try (NettyTransport transport = new NettyTransport();
          ClusterStreamLog log = connection.open(transport)) {
        PrintWriter out = spec.commandLine().getOut();
        int code = run(log, out);
        out.flush();
        return code;
      }
    }
  }

  @Command(
      name = "append",
      description =
          "Append VALUE atomically to every --stream; prints the global address and each stream"
              + " address.")
  static final class Append extends LogCommand {
    @Option(
        names = "--stream",
        required = true,
        description = "Stream name (repeat for an atomic multi-stream append).")
    List<String> streams = new ArrayList<>();

    @Parameters(index = "0", description = "The value (UTF-8 text).")
    String value;

    @Override
    int run(ClusterStreamLog log, PrintWriter out) {
      List<StreamId> ids = streams.stream().map(StreamId::of).toList();
      AppendResult r = log.append(ids, value.getBytes(StandardCharsets.UTF_8)).join();
      out.println("global " + r.globalAddress());
      for (int i = 0; i < ids.size(); i++) {
        out.println(streams.get(i) + " " + r.streamAddresses().get(ids.get(i)));
      }
      return 0;
    }
  }

  @Command(
      name = "read",
      description =
          "Read a stream (STREAM_ADDRESS GLOBAL_ADDRESS VALUE per line) or the global log"
              + " (--global: GLOBAL_ADDRESS VALUE, or HOLE).")
  static final class Read extends LogCommand {
    @Option(names = "--stream", description = "Stream name.")
    String stream;

    @Option(names = "--global", description = "Read the global log by address.")
    boolean global;

    @Option(names = "--from", defaultValue = "0", description = "First address (default 0).")
    long from;

    @Option(
        names = "--to",
        defaultValue = "-1",
        description = "Last address, inclusive (default: the tail).")
    long to;

    @Override
    int run(ClusterStreamLog log, PrintWriter out) {
      if (global == (stream != null)) {
        spec.commandLine()
            .getErr()
            .println("vcorfu log read: give exactly one of --stream NAME or --global");
        return 2;
      }
      if (global) {
        long end = to >= 0 ? to : log.tails(List.of()).join().globalTail();
        for (long start = from; start <= end; start += 4096) {
          for (GlobalEntry e : log.readGlobalRange(start, Math.min(end, start + 4095)).join()) {
            out.println(e.globalAddress() + " " + (e.isHole() ? "HOLE" : text(e.payload())));
          }
        }
        return 0;
      }
      StreamId id = StreamId.of(stream);
      long tail = log.tails(List.of(id)).join().streamTails().get(id);
      if (tail < 0) {
        throw new IllegalArgumentException("stream '" + stream + "' has never been written");
      }
      long end = to >= 0 ? Math.min(to, tail) : tail;
      try {
        for (long start = from; start <= end; start += 4096) {
          for (StreamEntry e : log.readStream(id, start, Math.min(end, start + 4095)).join()) {
            if (!e.isHole()) {
              out.println(e.streamAddress() + " " + e.globalAddress() + " " + text(e.payload()));
            }
          }
        }
      } catch (java.util.concurrent.CompletionException e) {
        if (e.getCause() instanceof io.vcorfu.protocol.TrimmedException t) {
          throw new IllegalArgumentException(
              "stream '"
                  + stream
                  + "' is trimmed below address "
                  + t.trimMark()
                  + "; read from "
                  + t.trimMark()
                  + " on",
              t);
        }
        throw e;
      }
      return 0;
    }
  }

  @Command(name = "tail", description = "Print the global tail, or a stream's tail with --stream.")
  static final class Tail extends LogCommand {
    @Option(names = "--stream", description = "Stream name.")
    String stream;

    @Override
    int run(ClusterStreamLog log, PrintWriter out) {
      if (stream == null) {
        out.println("global " + log.tails(List.of()).join().globalTail());
        return 0;
      }
      StreamId id = StreamId.of(stream);
      Tails t = log.tails(List.of(id)).join();
      out.println(
          stream + " " + t.streamTails().get(id) + " global " + t.streamLastGlobal().get(id));
      return 0;
    }
  }

  @Command(
      name = "trim",
      description = "Release every entry of --stream below stream address --before.")
  static final class Trim extends LogCommand {
    @Option(names = "--stream", required = true)
    String stream;

    @Option(names = "--before", required = true)
    long before;

    @Override
    int run(ClusterStreamLog log, PrintWriter out) {
      StreamId id = StreamId.of(stream);
      long mark;
      try {
        mark = log.trimStream(id, before).join();
      } catch (java.util.concurrent.CompletionException e) {
        if (e.getCause() instanceof io.vcorfu.protocol.BadRequestException refused) {
          // The replica names the stream by its id; the user named it.
          throw new IllegalArgumentException(
              refused.getMessage().replace("stream " + id, "stream '" + stream + "'"), refused);
        }
        if (e.getCause() instanceof io.vcorfu.protocol.UnknownStreamException unknown) {
          throw new IllegalArgumentException(
              "stream '" + stream + "' has never been written", unknown);
        }
        throw e;
      }
      out.println(stream + " trimmed below " + mark);
      return 0;
    }
  }

  static String text(byte[] payload) {
    return new String(payload, StandardCharsets.UTF_8);
  }
}
