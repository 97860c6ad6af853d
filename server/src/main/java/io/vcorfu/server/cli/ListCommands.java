package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.DirectoryEntry;
import io.vcorfu.client.NameDirectory;
import io.vcorfu.protocol.StreamId;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu log list} and {@code vcorfu map list}: the names of the cluster's name directory
 * ({@link NameDirectory}), sorted by name: as text one name per line, as JSON one object per
 * registered name with its kind, stream id, first address (and a stream's tail).
 */
final class ListCommands {
  /** Streams whose tails one request asks for. */
  private static final int TAILS_PER_REQUEST = 1024;

  private ListCommands() {}

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "List the names of streams written by name (vcorfu log append) and of objects opened by"
              + " name, one per line, sorted; --output json adds each one's kind, stream id, first"
              + " address and tail.")
  static final class Logs extends LogCommands.LogCommand {
    @Option(names = "--prefix", paramLabel = "P", description = "Only names that start with P.")
    String prefix = "";

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      List<DirectoryEntry> names =
          names(connection, log, prefix, e -> !e.kind().equals(DirectoryEntry.MAP));
      Map<StreamId, Long> tails = output.json() ? tails(log, names) : Map.of();
      print(out, names, output.json(), e -> e.put("tail", tails.getOrDefault(stream(e), -1L)));
      return 0;
    }

    private Map<StreamId, Long> tails(ClusterStreamLog log, List<DirectoryEntry> names)
        throws Exception {
      List<StreamId> ids = names.stream().map(DirectoryEntry::stream).distinct().toList();
      Map<StreamId, Long> tails = new HashMap<>();
      for (int i = 0; i < ids.size(); i += TAILS_PER_REQUEST) {
        List<StreamId> part = ids.subList(i, Math.min(ids.size(), i + TAILS_PER_REQUEST));
        tails.putAll(connection.await(log.tails(part), "reading the tails").streamTails());
      }
      return tails;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "List the names of maps, one per line, sorted; --output json adds each one's stream id"
              + " (its layout stream) and first address.")
  static final class Maps extends LogCommands.LogCommand {
    @Option(names = "--prefix", paramLabel = "P", description = "Only names that start with P.")
    String prefix = "";

    @Override
    int run(ClusterStreamLog log, PrintWriter out) throws Exception {
      List<DirectoryEntry> maps =
          names(connection, log, prefix, e -> e.kind().equals(DirectoryEntry.MAP));
      print(out, maps, output.json(), n -> {});
      return 0;
    }
  }

  /** The directory's names of {@code kinds} that start with {@code prefix}, sorted by name. */
  private static List<DirectoryEntry> names(
      Connection connection, ClusterStreamLog log, String prefix, Predicate<DirectoryEntry> kinds)
      throws Exception {
    return connection.await(new NameDirectory(log).list(), "reading the name directory").stream()
        .filter(kinds)
        .filter(e -> e.name().startsWith(prefix))
        .toList();
  }

  /** The stream id a JSON line names. */
  private static StreamId stream(ObjectNode n) {
    return StreamId.parse(n.get("stream").asText());
  }

  /**
   * {@code entries} as text (each name once, escaped) or JSON (one object per entry, {@code more}
   * adding fields).
   */
  private static void print(
      PrintWriter out,
      List<DirectoryEntry> entries,
      boolean json,
      java.util.function.Consumer<ObjectNode> more) {
    if (!json) {
      TreeSet<String> names = new TreeSet<>();
      entries.forEach(e -> names.add(e.name()));
      names.forEach(n -> out.println(Output.escape(n.getBytes(StandardCharsets.UTF_8))));
      return;
    }
    for (DirectoryEntry e : entries) {
      ObjectNode n = Output.mapper().createObjectNode();
      n.put("name", e.name());
      n.put("kind", e.kind());
      if (!e.type().isEmpty()) {
        n.put("type", e.type());
      }
      n.put("stream", e.stream().toString());
      n.put("firstAddress", e.firstAddress());
      more.accept(n);
      out.println(Output.line(n));
    }
  }
}
