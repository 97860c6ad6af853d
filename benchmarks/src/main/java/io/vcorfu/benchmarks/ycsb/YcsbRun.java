package io.vcorfu.benchmarks.ycsb;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.benchmarks.BenchOutput;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Consumer;

/**
 * One YCSB benchmark: the load phase ({@code -load}) then the transaction phase ({@code -t}) of
 * YCSB's own client, {@code site.ycsb.Client}, against one binding and one core workload.
 *
 * <p>Each phase runs in a child JVM started with this JVM's class path and {@code -X} options. YCSB
 * 0.17.0's client has only {@code main} as an entry point, and it ends with {@code System.exit}; it
 * also keeps its measurements and status thread in static fields, so two phases in one JVM would
 * mix their figures. A child per phase gives each phase a fresh client and lets this JVM go on. The
 * child's standard output (YCSB's report) is copied line by line to {@code out}, its standard error
 * (YCSB's progress lines, the binding's errors) to {@code err}. The run phase prints a status line
 * every second ({@code -s}); the summary line reports, besides each phase's overall rate, the run
 * phase's cold figure (its first seconds: a fresh client JVM) and warm figure (the rest of the
 * phase after a warm-up), see {@link YcsbProgress}.
 *
 * <p>A phase that has not finished within {@link Settings#phaseTimeout()} is stopped (by its
 * process handle) and the run fails. Not thread-safe; run one benchmark at a time per instance.
 */
public final class YcsbRun {
  /** The YCSB client's main class. */
  public static final String CLIENT_CLASS = "site.ycsb.Client";

  /** A YCSB phase and its client flag. */
  public enum Phase {
    LOAD("-load"),
    RUN("-t");

    private final String flag;

    Phase(String flag) {
      this.flag = flag;
    }

    public String flag() {
      return flag;
    }

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * What to run.
   *
   * @param db a binding name of {@link YcsbBindings}
   * @param workload a workload letter a..f (see {@link YcsbWorkloads#letter})
   * @param endpoint HOST:PORT of the server, or null for the binding's default
   * @param properties further YCSB properties, passed as {@code -p key=value} after all others
   */
  public record Settings(
      String db,
      String workload,
      long records,
      long operations,
      int threads,
      String endpoint,
      int fieldCount,
      int fieldLength,
      Map<String, String> properties,
      Duration phaseTimeout) {
    public Settings {
      Objects.requireNonNull(db, "db");
      workload = YcsbWorkloads.letter(workload);
      positive("--records", records);
      positive("--operations", operations);
      positive("--threads", threads);
      positive("--field-count", fieldCount);
      positive("--field-length", fieldLength);
      if (phaseTimeout.isNegative() || phaseTimeout.isZero()) {
        throw new IllegalArgumentException("The phase timeout must be positive.");
      }
      properties = Map.copyOf(properties);
    }

    private static void positive(String option, long value) {
      if (value < 1) {
        throw new IllegalArgumentException(option + " must be at least 1, not " + value + ".");
      }
    }
  }

  /** Default length of the cold window: the first seconds of the run phase. */
  public static final long DEFAULT_COLD_SECONDS = 10;

  /** Default start of the warm window: the run phase after this many seconds. */
  public static final long DEFAULT_WARM_AFTER_SECONDS = 30;

  /** The warm window must last at least this long to be reported. */
  static final double MIN_WARM_SECONDS = 5;

  private final Settings settings;
  private final YcsbBindings.Binding binding;
  private final long coldSeconds;
  private final long warmAfterSeconds;

  /**
   * A run whose summary reports the cold and warm figures with the default windows.
   *
   * @throws IllegalArgumentException if the binding does not exist or cannot run in this build
   */
  public YcsbRun(Settings settings) {
    this(settings, DEFAULT_COLD_SECONDS, DEFAULT_WARM_AFTER_SECONDS);
  }

  /**
   * A run whose summary reports the cold figure (the run phase's first {@code coldSeconds} seconds,
   * a fresh client JVM) and the warm figure (the run phase after {@code warmAfterSeconds} seconds).
   *
   * @throws IllegalArgumentException if the binding does not exist or cannot run in this build, or
   *     a window is not positive
   */
  public YcsbRun(Settings settings, long coldSeconds, long warmAfterSeconds) {
    if (coldSeconds < 1 || warmAfterSeconds < 1) {
      throw new IllegalArgumentException(
          "--cold-seconds and --warm-after must be at least 1, not "
              + coldSeconds
              + " and "
              + warmAfterSeconds
              + ".");
    }
    this.settings = settings;
    this.binding = YcsbBindings.resolve(settings.db());
    this.coldSeconds = coldSeconds;
    this.warmAfterSeconds = warmAfterSeconds;
  }

  /**
   * The arguments of {@code site.ycsb.Client} for one phase, reading the workload from {@code
   * workloadFile}.
   */
  public List<String> clientArguments(Phase phase, Path workloadFile) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("recordcount", Long.toString(settings.records()));
    props.put("operationcount", Long.toString(settings.operations()));
    props.put("fieldcount", Integer.toString(settings.fieldCount()));
    props.put("fieldlength", Integer.toString(settings.fieldLength()));
    if (settings.endpoint() != null) {
      props.putAll(binding.endpointProperties().apply(settings.endpoint()));
    }
    props.putAll(settings.properties());
    List<String> args = new ArrayList<>();
    args.add(phase.flag());
    args.add("-db");
    args.add(binding.dbClass());
    args.add("-P");
    args.add(workloadFile.toString());
    if (phase == Phase.RUN) {
      // Status lines every second on standard error: the run phase's cold and warm figures.
      props.put("status.interval", "1");
    }
    props.forEach(
        (k, v) -> {
          args.add("-p");
          args.add(k + "=" + v);
        });
    if (phase == Phase.RUN) {
      args.add("-s");
    }
    args.add("-threads");
    args.add(Integer.toString(settings.threads()));
    return args;
  }

  /**
   * Runs the load phase, then (if it succeeded) the run phase, and prints the result through {@code
   * output} on {@code out}: a summary line, or the line saying why the run failed. In text {@code
   * out} also gets a header line, a line naming each phase and YCSB's report; in JSON those go to
   * {@code err}, so that {@code out} holds only the result object. {@code err} gets YCSB's progress
   * (in the run phase a status line every second) and the binding's errors.
   *
   * @return 0 if both phases finished and no operation returned an error, 1 otherwise
   */
  public int execute(BenchOutput output, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    PrintStream info = output.json() ? err : out;
    info.printf(
        "ycsb: db %s (%s), workload %s, %d records, %d operations, %d threads, %d fields of %d"
            + " bytes%s%n",
        binding.name(),
        binding.dbClass(),
        settings.workload(),
        settings.records(),
        settings.operations(),
        settings.threads(),
        settings.fieldCount(),
        settings.fieldLength(),
        settings.endpoint() == null ? "" : ", endpoint " + settings.endpoint());
    Path dir = Files.createTempDirectory("vcorfu-ycsb-");
    Path workloadFile = YcsbWorkloads.extract(settings.workload(), dir);
    try {
      Map<Phase, YcsbReport> reports = new LinkedHashMap<>();
      YcsbProgress progress = new YcsbProgress();
      for (Phase phase : Phase.values()) {
        info.println("ycsb: " + phase.label() + " phase");
        info.flush();
        YcsbReport report = new YcsbReport();
        int status =
            runChild(
                clientArguments(phase, workloadFile),
                line -> {
                  info.println(line);
                  report.accept(line);
                },
                line -> {
                  err.println(line);
                  if (phase == Phase.RUN) {
                    progress.accept(line);
                  }
                });
        info.flush();
        String failure = failure(phase, status, report);
        if (failure != null) {
          output.print(
              out,
              parameters().put("phase", phase.label()).put("error", failure),
              "ycsb: " + failure);
          return 1;
        }
        reports.put(phase, report);
      }
      output.print(out, summaryJson(reports, progress), summary(reports, progress));
      return reports.values().stream().anyMatch(r -> r.totalErrors() > 0) ? 1 : 0;
    } finally {
      Files.deleteIfExists(workloadFile);
      Files.deleteIfExists(dir);
    }
  }

  private String failure(Phase phase, int status, YcsbReport report) {
    String next = phase == Phase.LOAD ? "; the run phase was skipped." : ".";
    if (status == TIMED_OUT) {
      return "the "
          + phase.label()
          + " phase did not finish within "
          + settings.phaseTimeout().toSeconds()
          + " s and was stopped"
          + next;
    }
    if (status != 0) {
      return "the "
          + phase.label()
          + " phase failed (YCSB exited with status "
          + status
          + ")"
          + next;
    }
    if (report.completedOperations() == 0) {
      return "the "
          + phase.label()
          + " phase completed no operation (the "
          + binding.name()
          + " binding could not start; see the errors above)"
          + next;
    }
    return null;
  }

  /** {@code {"mode": "ycsb", ...}} with the run's settings. */
  private ObjectNode parameters() {
    return BenchOutput.result("ycsb")
        .put("db", binding.name())
        .put("db_class", binding.dbClass())
        .put("workload", settings.workload())
        .put("records", settings.records())
        .put("operations", settings.operations())
        .put("threads", settings.threads())
        .put("field_count", settings.fieldCount())
        .put("field_length", settings.fieldLength())
        .put("endpoint", settings.endpoint());
  }

  /**
   * The summary as a JSON object: the settings, and per phase ({@code load}, {@code run}) an object
   * of {@code ops}, {@code seconds}, {@code ops_per_second} (YCSB's overall throughput), {@code
   * errors}, {@code ops_by_type} and {@code latency_us_by_type} (YCSB's figures, see {@link
   * YcsbReport#latenciesUs}); the run phase's also holds {@code cold_seconds}, {@code
   * cold_ops_per_second}, {@code warm_after_seconds} and {@code warm_ops_per_second} (null when the
   * phase was too short for them).
   */
  ObjectNode summaryJson(Map<Phase, YcsbReport> reports, YcsbProgress progress) {
    ObjectNode result = parameters();
    reports.forEach(
        (phase, r) -> {
          ObjectNode p =
              result
                  .putObject(phase.label())
                  .put("ops", r.completedOperations())
                  .put("seconds", r.runtimeSeconds());
          putRate(p, "ops_per_second", r.throughput());
          p.put("errors", r.totalErrors());
          ObjectNode byType = p.putObject("ops_by_type");
          r.operations().forEach(byType::put);
          ObjectNode latencies = p.putObject("latency_us_by_type");
          r.latenciesUs()
              .forEach(
                  (type, figures) -> {
                    ObjectNode t = latencies.putObject(type);
                    figures.forEach(t::put);
                  });
        });
    ObjectNode run = (ObjectNode) result.get(Phase.RUN.label());
    run.put("cold_seconds", coldSeconds);
    putRate(run, "cold_ops_per_second", coldRate(progress));
    run.put("warm_after_seconds", warmAfterSeconds);
    putRate(run, "warm_ops_per_second", warmRate(reports, progress));
    return result;
  }

  private static void putRate(ObjectNode node, String name, OptionalDouble rate) {
    if (rate.isPresent()) {
      node.put(name, rate.getAsDouble());
    } else {
      node.putNull(name);
    }
  }

  private OptionalDouble coldRate(YcsbProgress progress) {
    return progress.coldRate(coldSeconds);
  }

  private OptionalDouble warmRate(Map<Phase, YcsbReport> reports, YcsbProgress progress) {
    YcsbReport run = reports.get(Phase.RUN);
    return progress.warmRate(
        warmAfterSeconds, run.completedOperations(), run.runtimeSeconds(), MIN_WARM_SECONDS);
  }

  /** The summary line. */
  String summary(Map<Phase, YcsbReport> reports, YcsbProgress progress) {
    StringBuilder b =
        new StringBuilder("ycsb summary: db ")
            .append(binding.name())
            .append(" workload ")
            .append(settings.workload());
    reports.forEach(
        (phase, r) ->
            b.append(
                String.format(
                    ", %s %d ops at %.1f ops/s (%d errors)",
                    phase.label(),
                    r.completedOperations(),
                    r.throughput().orElse(0),
                    r.totalErrors())));
    OptionalDouble cold = coldRate(progress);
    OptionalDouble warm = warmRate(reports, progress);
    b.append(
        String.format(
            ", run cold (first %d s) %s",
            coldSeconds,
            cold.isPresent()
                ? String.format("%.1f ops/s", cold.getAsDouble())
                : "n/a (the run phase was shorter)"));
    b.append(
        String.format(
            ", run warm (after %d s) %s",
            warmAfterSeconds,
            warm.isPresent()
                ? String.format("%.1f ops/s", warm.getAsDouble())
                : String.format(
                    "n/a (the run phase lasted less than %.0f s more)", MIN_WARM_SECONDS)));
    return b.toString();
  }

  private static final int TIMED_OUT = PhaseJvm.TIMED_OUT;

  private int runChild(List<String> clientArgs, Consumer<String> stdout, Consumer<String> stderr)
      throws IOException, InterruptedException {
    return PhaseJvm.run(clientArgs, settings.phaseTimeout(), stdout, stderr);
  }
}
