package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamWatch;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.TrimmedException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu log follow --stream S [--from A] [--count N]}: prints a stream's entries as they
 * commit, one line each ({@code STREAM_ADDRESS GLOBAL_ADDRESS VALUE}, as {@code log read}), flushed
 * at once, until interrupted or {@code --count} entries were printed. Without {@code --from} it
 * starts after the stream's tail when it starts (only what is appended from then on); with it, at
 * that address (what is already there first). A stream never written yet is waited for.
 *
 * <p>It follows a {@link StreamWatch}: the sequencer holds its request until the stream moves, so
 * an entry is printed as soon as it commits, once, in stream order, with no polling. It rides
 * through failovers as every client does; a stream trimmed past the next address is followed from
 * its trim mark, with a note on standard error.
 */
@Command(
    name = "follow",
    mixinStandardHelpOptions = true,
    description =
        "Print a stream's entries as they commit (STREAM_ADDRESS GLOBAL_ADDRESS VALUE per line,"
            + " flushed at once) until interrupted: from its tail on, or from --from. --count N"
            + " ends after N entries.")
final class LogFollow extends LogCommands.LogCommand {
  @Option(names = "--stream", required = true, description = "Stream name.")
  String stream;

  @Option(
      names = "--from",
      description = "First address to print (default: the first appended after the start).")
  Long from;

  @Option(
      names = "--count",
      description = "End (exit 0) after printing this many entries (default: run until stopped).")
  Long count;

  @Override
  void check() {
    Flags.name(spec, "--stream", stream);
    Flags.notNegative(spec, "--from", from);
    Flags.positive(spec, "--count", count);
  }

  @Override
  int run(ClusterStreamLog log, PrintWriter out) throws Exception {
    StreamId id = StreamId.of(stream);
    long[] printed = {0};
    long[] next = {from != null ? from : 0};
    StreamWatch watch =
        from != null
            ? StreamWatch.fromStreamAddress(log, id, from)
            : StreamWatch.fromNow(log, List.of(id));
    while (true) {
      try {
        Following.follow(
            watch,
            e -> {
              LogCommands.printEntry(out, output.json(), e);
              out.flush();
              next[0] = e.streamAddress() + 1;
              return count == null || ++printed[0] < count;
            });
        return 0;
      } catch (TrimmedException t) {
        long resume = pastTrim(t, stream, next[0], "following");
        watch = StreamWatch.fromStreamAddress(log, id, resume);
      }
    }
  }
}
