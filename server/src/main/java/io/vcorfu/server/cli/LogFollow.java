package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamEntry;
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
 * <p>It asks the sequencer for the stream's tail, every 10 ms while entries keep coming and less
 * often when they do not (up to every 200 ms), and reads each new range from the replicas, so an
 * entry is printed once it is committed, once, in stream order. It rides through failovers as every
 * client does; a stream trimmed past the next address is followed from its trim mark, with a note
 * on standard error.
 */
@Command(
    name = "follow",
    mixinStandardHelpOptions = true,
    description =
        "Print a stream's entries as they commit (STREAM_ADDRESS GLOBAL_ADDRESS VALUE per line,"
            + " flushed at once) until interrupted: from its tail on, or from --from. --count N"
            + " ends after N entries.")
final class LogFollow extends LogCommands.LogCommand {
  /** The shortest and longest wait between two looks at the stream's tail. */
  static final long MIN_WAIT_MS = 10;

  static final long MAX_WAIT_MS = 200;

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
    if (count != null && count < 1) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--count must be at least 1, got " + count);
    }
  }

  @Override
  int run(ClusterStreamLog log, PrintWriter out) throws Exception {
    StreamId id = StreamId.of(stream);
    long next = from != null ? from : tail(log, id) + 1;
    long printed = 0;
    long wait = MIN_WAIT_MS;
    while (count == null || printed < count) {
      long tail = tail(log, id);
      if (tail < next) {
        Thread.sleep(wait);
        wait = Math.min(MAX_WAIT_MS, wait * 2);
        continue;
      }
      wait = MIN_WAIT_MS;
      long end = Math.min(tail, next + 4095);
      List<StreamEntry> page;
      try {
        page = connection.await(log.readStream(id, next, end), "the read");
      } catch (TrimmedException t) {
        next = pastTrim(t, stream, next, "following");
        continue;
      }
      for (StreamEntry e : page) {
        if (!e.isHole()) {
          LogCommands.printEntry(out, output.json(), e);
          printed++;
          if (count != null && printed >= count) {
            break;
          }
        }
      }
      out.flush();
      next = end + 1;
    }
    return 0;
  }

  /** The stream's tail (its last address), -1 while it was never written. */
  private long tail(ClusterStreamLog log, StreamId id) throws Exception {
    return connection.await(log.tails(List.of(id)), "reading the tail").streamTails().get(id);
  }
}
