package io.vcorfu.server.cli;

import io.vcorfu.collections.CSMRMap;
import io.vcorfu.collections.KeyVersion;
import io.vcorfu.collections.MapUpdate;
import io.vcorfu.runtime.ObjectHistory;
import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu map ...}: a {@link CSMRMap} of text keys and values from the command line: put,
 * get, remove, scan, and the history of one key.
 */
@Command(
    name = "map",
    mixinStandardHelpOptions = true,
    description =
        "Put, get, remove and scan the keys of a CSMRMap of text keys and values, show every"
            + " version of a key, diff two versions or two maps, fork a map, merge one map into"
            + " another, watch the changes as they commit, and list the maps.")
final class MapCommands {
  /**
   * The commands under {@code vcorfu map}, in the order its help lists them (added when the command
   * line is made, so that a one-shot run builds only the one it runs; see {@link VcorfuCli}).
   */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          MapCommands.Put.class,
          MapCommands.Get.class,
          MapCommands.Remove.class,
          MapCommands.Scan.class,
          MapCommands.History.class,
          MapDiffCommand.class,
          MapForkCommand.class,
          MapMergeCommand.class,
          MapCommands.Watch.class,
          ListCommands.Maps.class);

  /** Buckets of a map created by {@code vcorfu map put} without {@code --buckets}. */
  static final int DEFAULT_BUCKETS = 16;

  private MapCommands() {}

  abstract static class MapCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin Connection connection = new Connection();
    @picocli.CommandLine.Mixin Output output = new Output();

    @Option(names = "--map", required = true, description = "The map's name.")
    String map;

    @Option(
        names = "--buckets",
        description = "Bucket count: creates the map with it, or checks it against the stored one.")
    Integer buckets;

    @Spec CommandSpec spec;

    /**
     * Whether a map that does not exist yet is created (with {@value #DEFAULT_BUCKETS} buckets
     * unless --buckets).
     */
    boolean creates() {
      return false;
    }

    abstract void run(VCorfuRuntime rt, CSMRMap<String, String> map, PrintWriter out)
        throws Exception;

    /** Refuses option values the command cannot use (see {@link Flags}), before it connects. */
    void check() {}

    @Override
    public Integer call() throws Exception {
      if (buckets != null && buckets < 1) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--buckets must be at least 1, not " + buckets);
      }
      Flags.name(spec, "--map", map);
      check();
      try (ShellSession.Held<VCorfuRuntime> held = connection.runtime()) {
        VCorfuRuntime rt = held.get();
        PrintWriter out = spec.commandLine().getOut();
        run(rt, open(rt), out);
        out.flush();
        return 0;
      }
    }

    CSMRMap<String, String> open(VCorfuRuntime rt) {
      if (buckets != null) {
        return CSMRMap.open(rt, map, buckets);
      }
      try {
        return CSMRMap.open(rt, map);
      } catch (ObjectOpenException e) {
        if (creates()) {
          return CSMRMap.open(rt, map, DEFAULT_BUCKETS);
        }
        throw new NotFoundException(
            "map '" + map + "' does not exist; create it with vcorfu map put");
      }
    }
  }

  @Command(
      name = "put",
      mixinStandardHelpOptions = true,
      description =
          "Set KEY to VALUE (creating the map if needed); prints the previous value, or (none).")
  static final class Put extends MapCommand {
    @Parameters(index = "0", description = "The key.")
    String key;

    @Parameters(
        index = "1",
        arity = "0..1",
        paramLabel = "VALUE",
        description = "The value (text); - reads it from standard input.")
    String value;

    @Option(
        names = "--value-file",
        paramLabel = "FILE",
        description = "Read the value (UTF-8 text) from FILE (- for standard input) instead.")
    java.nio.file.Path valueFile;

    @Option(
        names = "--fast",
        description = "Blind write (fastPut): does not read or print the previous value.")
    boolean fast;

    @Override
    boolean creates() {
      return true;
    }

    @Override
    void check() {
      Flags.readableFile(spec, "--value-file", valueFile);
      Values.notShellInput(spec, value, valueFile);
    }

    @Override
    void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) throws Exception {
      String text = Output.utf8(Values.read(spec, value, valueFile));
      if (text == null) {
        throw new IllegalArgumentException("a map value is text: the bytes given are not UTF-8");
      }
      if (fast) {
        m.fastPut(key, text);
        return;
      }
      String previous = m.put(key, text);
      if (output.json()) {
        com.fasterxml.jackson.databind.node.ObjectNode n = Output.mapper().createObjectNode();
        n.put("key", key);
        n.put("previous", previous);
        out.println(Output.line(n));
        return;
      }
      out.println(previous == null ? "(none)" : escape(previous));
    }
  }

  /**
   * A command on one existing key: prints the value {@link #apply} returns, or fails when there was
   * none.
   */
  abstract static class KeyCommand extends MapCommand {
    @Parameters(index = "0", description = "The key.")
    String key;

    /**
     * Reads or changes {@code key} in {@code m}; returns its value, or null when the map had no
     * such key.
     */
    abstract Object apply(CSMRMap<Object, Object> m, String key);

    @Override
    void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) {
      Object v = apply(stored(m), key);
      if (v == null) {
        throw new NotFoundException("map '" + map + "' has no key '" + key + "'");
      }
      if (output.json()) {
        out.println(Output.line(typed(Output.mapper().createObjectNode().put("key", key), v)));
        return;
      }
      out.println(escape(text(v)));
    }
  }

  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = "Print KEY's value; exits 3 if the map has no such key.")
  static final class Get extends KeyCommand {
    @Override
    Object apply(CSMRMap<Object, Object> m, String key) {
      return m.get(key);
    }
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = "Remove KEY; prints the value it had; exits 3 if the map has no such key.")
  static final class Remove extends KeyCommand {
    @Override
    Object apply(CSMRMap<Object, Object> m, String key) {
      return m.remove(key);
    }
  }

  @Command(
      name = "scan",
      mixinStandardHelpOptions = true,
      description =
          "Print KEY VALUE per line in key order, from one consistent snapshot of every bucket.")
  static final class Scan extends MapCommand {
    @Option(names = "--from", description = "First key (inclusive; default: the smallest).")
    String from;

    @Option(names = "--limit", description = "At most this many keys (default: all).")
    Long limit;

    @Override
    void check() {
      Flags.notNegative(spec, "--limit", limit);
    }

    @Override
    void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) {
      // Keys in the order of their text: an application may have stored keys that are not text.
      TreeMap<String, Object> sorted = new TreeMap<>();
      stored(m).snapshot().forEach((k, v) -> sorted.put(text(k), v));
      int printed = 0;
      for (Map.Entry<String, Object> e :
          (from == null ? sorted : sorted.tailMap(from, true)).entrySet()) {
        if (limit != null && printed++ == limit) {
          break;
        }
        if (output.json()) {
          out.println(
              Output.line(
                  typed(Output.mapper().createObjectNode().put("key", e.getKey()), e.getValue())));
        } else {
          out.println(escape(e.getKey()) + " " + escape(text(e.getValue())));
        }
      }
    }
  }

  @Command(
      name = "history",
      mixinStandardHelpOptions = true,
      description =
          "Every version of --key: GLOBAL_ADDRESS VALUE per line, oldest first; (removed) where it"
              + " was removed. --limit N: only the N newest; --before G: only those below global"
              + " address G. Versions trimmed away (below the map's retention) are said so on"
              + " standard error.")
  static final class History extends MapCommand {
    @Option(names = "--key", required = true, description = "The key.")
    String key;

    @Option(names = "--limit", description = "Only the newest N versions (default: all).")
    Long limit;

    @Option(names = "--before", description = "Only versions below this global address.")
    Long before;

    @Override
    void check() {
      Flags.positive(spec, "--limit", limit);
      Flags.notNegative(spec, "--before", before);
    }

    @Override
    void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) {
      List<KeyVersion<Object>> newestFirst = new ArrayList<>();
      long next = before != null ? before : Long.MAX_VALUE;
      boolean trimmed = false;
      while (next >= 0 && (limit == null || newestFirst.size() < limit)) {
        int page = (int) Math.min(1_000, limit == null ? 1_000 : limit - newestFirst.size());
        ObjectHistory<KeyVersion<Object>> h = stored(m).history(key, next, page);
        newestFirst.addAll(h.items());
        trimmed = h.trimmed();
        next = h.items().isEmpty() ? -1 : h.nextBefore();
      }
      for (int i = newestFirst.size() - 1; i >= 0; i--) {
        KeyVersion<Object> v = newestFirst.get(i);
        String value =
            v.removed()
                ? null
                : v.value() != null ? text(v.value()) : "(fields " + text(v.fields()) + ")";
        if (output.json()) {
          out.println(
              Output.line(
                  Output.mapper()
                      .createObjectNode()
                      .put("global", v.globalAddress())
                      .put("time", v.timeMillis())
                      .put("value", value)
                      .put("removed", v.removed())));
        } else {
          out.println(v.globalAddress() + " " + (value == null ? "(removed)" : escape(value)));
        }
      }
      if (trimmed) {
        spec.commandLine()
            .getErr()
            .println(
                "vcorfu: older versions of '"
                    + key
                    + "' were trimmed (below the map's retention); the oldest listed is the oldest"
                    + " kept");
      }
    }
  }

  @Command(
      name = "watch",
      mixinStandardHelpOptions = true,
      description =
          "Print the map's changes as they commit, one line each, flushed at once, until"
              + " interrupted: GLOBAL_ADDRESS put KEY VALUE, GLOBAL_ADDRESS remove KEY,"
              + " GLOBAL_ADDRESS update KEY FIELDS or GLOBAL_ADDRESS clear. From what commits after"
              + " the start, or from global address --from; --prefix P only the keys starting"
              + " with P (and clears); --count N ends after N changes.")
  static final class Watch extends MapCommand {
    @Option(names = "--prefix", description = "Only the keys starting with this (and clears).")
    String prefix;

    @Option(
        names = "--from",
        description = "First global address (default: what commits after the start).")
    Long from;

    @Option(
        names = "--count",
        description = "End (exit 0) after printing this many changes (default: run until stopped).")
    Long count;

    @Override
    void check() {
      Flags.notNegative(spec, "--from", from);
      Flags.positive(spec, "--count", count);
    }

    /**
     * The map; one that does not exist yet is waited for (its layout stream's first entry, with no
     * polling), and then watched from its creation, so that its first changes are printed too.
     */
    @Override
    CSMRMap<String, String> open(VCorfuRuntime rt) {
      try {
        return super.open(rt);
      } catch (NotFoundException missing) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("vcorfu: map '" + map + "' does not exist yet; waiting for it to be created");
        err.flush();
        long[] created = {-1};
        try (ShellSession.Held<io.vcorfu.client.ClusterStreamLog> log = connection.log()) {
          Following.follow(
              io.vcorfu.client.StreamWatch.fromStreamAddress(
                  log.get(), CSMRMap.layoutStream(map), 0),
              e -> {
                created[0] = e.globalAddress();
                return e.isHole();
              });
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        if (from == null) {
          from = created[0];
        }
        return super.open(rt);
      }
    }

    @Override
    void run(VCorfuRuntime rt, CSMRMap<String, String> m, PrintWriter out) throws Exception {
      CSMRMap<Object, Object> map = stored(m);
      long[] printed = {0};
      Following.follow(
          from != null ? map.watch(from) : map.watchFromNow(),
          u -> {
            for (MapUpdate.Change<Object, Object> c : u.changes()) {
              if (prefix != null
                  && c.kind() != MapUpdate.Kind.CLEAR
                  && !text(c.key()).startsWith(prefix)) {
                continue;
              }
              out.println(line(u.globalAddress(), c, output.json()));
              if (count != null && ++printed[0] >= count) {
                out.flush();
                return false;
              }
            }
            out.flush();
            return true;
          });
    }

    /** One change as {@code map watch} prints it. */
    static String line(long global, MapUpdate.Change<Object, Object> c, boolean json) {
      String op =
          switch (c.kind()) {
            case PUT -> "put";
            case REMOVE -> "remove";
            case UPDATE_FIELDS -> "update";
            case CLEAR -> "clear";
          };
      if (json) {
        com.fasterxml.jackson.databind.node.ObjectNode n =
            Output.mapper().createObjectNode().put("global", global).put("op", op);
        if (c.key() != null) {
          n.put("key", text(c.key()));
        }
        if (c.value() != null) {
          typed(n, c.value());
        }
        if (c.fields() != null) {
          n.put("fields", text(c.fields()));
        }
        return Output.line(n);
      }
      StringBuilder b = new StringBuilder().append(global).append(' ').append(op);
      if (c.key() != null) {
        b.append(' ').append(escape(text(c.key())));
      }
      if (c.value() != null) {
        b.append(' ').append(escape(text(c.value())));
      }
      if (c.fields() != null) {
        b.append(' ').append(escape(text(c.fields())));
      }
      return b.toString();
    }
  }

  /** {@code text} on one line (see {@link Output#escape}). */
  /**
   * The map with its keys and values as stored: the command line writes text, but an application
   * may have stored any serializable value, which the commands print by its string form.
   */
  @SuppressWarnings("unchecked")
  static CSMRMap<Object, Object> stored(CSMRMap<String, String> m) {
    return (CSMRMap<Object, Object>) (CSMRMap<?, ?>) m;
  }

  /** A stored key or value as the command line prints it: text as it is, else its string form. */
  static String text(Object stored) {
    return stored instanceof String s ? s : String.valueOf(stored);
  }

  /**
   * {@code n} with {@code value} as its {@code value} field, and for a value that is not text its
   * class in {@code type}.
   */
  static com.fasterxml.jackson.databind.node.ObjectNode typed(
      com.fasterxml.jackson.databind.node.ObjectNode n, Object value) {
    n.put("value", text(value));
    if (!(value instanceof String)) {
      n.put("type", value.getClass().getName());
    }
    return n;
  }

  static String escape(String text) {
    return Output.escape(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
