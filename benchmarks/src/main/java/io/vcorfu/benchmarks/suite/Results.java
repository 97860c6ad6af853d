package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A run's result lines ({@code TAG | line}) in WORKDIR/results.txt: every measurement's command,
 * its standard output, and its exit status when not 0. Each measurement's lines also go to standard
 * output as it ends; its standard error is kept in WORKDIR/raw/stderr.txt.
 */
final class Results {
  private final Processes processes;
  private final Path file;
  private final Path raw;

  Results(Processes processes, Path workdir) throws IOException {
    this.processes = processes;
    this.raw = workdir.resolve("raw");
    Files.createDirectories(raw);
    this.file = workdir.resolve("results.txt");
    Files.writeString(file, "");
  }

  Path file() {
    return file;
  }

  Path raw() {
    return raw;
  }

  /** Appends one line, {@code TAG | TEXT}. */
  void add(String tag, String text) throws IOException {
    append(List.of(tag + " | " + text));
  }

  private void append(List<String> lines) throws IOException {
    StringBuilder b = new StringBuilder();
    lines.forEach(l -> b.append(l).append('\n'));
    Files.writeString(file, b, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  /** Adds TEXT, a line this process made (not a command's output), and prints it as a result. */
  void addShown(String tag, String text) throws IOException {
    add(tag, text);
    System.out.println(tag + " | " + text);
    System.out.flush();
  }

  /** {@link #measure(String, String, List, UnaryOperator)} with the output as it is. */
  int measure(String tag, String shown, List<String> command)
      throws IOException, InterruptedException {
    return measure(tag, shown, command, UnaryOperator.identity());
  }

  /**
   * Runs COMMAND (SHOWN in the results) to its end, its standard output made into result lines by
   * LINES (which may throw to fail the measurement); returns its exit status (1 when LINES threw).
   * A failure is a result line, not the end of the run.
   */
  int measure(String tag, String shown, List<String> command, UnaryOperator<String> lines)
      throws IOException, InterruptedException {
    List<String> added = new ArrayList<>();
    SuiteLog.log(tag + ": " + shown);
    added.add(tag + " | $ " + shown);
    Path out = raw.resolve("current.out");
    Path err = raw.resolve("current.err");
    Processes.Started p = processes.start(tag, out, err, command);
    int status = Processes.waitFor(p);
    processes.stop(p);
    String text = Files.readString(out);
    try {
      text = lines.apply(text);
    } catch (IllegalStateException e) {
      Files.writeString(err, "error: " + e.getMessage() + "\n", StandardOpenOption.APPEND);
      text = "";
      status = status == 0 ? 1 : status;
    }
    text.lines().forEach(l -> added.add(tag + " | " + l));
    Files.write(
        raw.resolve("stderr.txt"),
        Files.readAllBytes(err),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    if (status != 0) {
      added.add(tag + " | exit status " + status);
      SuiteLog.log(tag + " exited with status " + status + "; last lines of its standard error:");
      Workdirs.showTail(err, 5);
    }
    append(added);
    added.forEach(System.out::println);
    System.out.flush();
    return status;
  }

  /** The standard output of COMMAND, run to its end; fails unless it exits 0. */
  String capture(String what, List<String> command) throws IOException, InterruptedException {
    Path out = raw.resolve("capture.out");
    Path err = raw.resolve("capture.err");
    Processes.Started p = processes.start(what, out, err, command);
    int status = Processes.waitFor(p);
    processes.stop(p);
    if (status != 0) {
      Workdirs.showTail(err, 5);
      throw new IllegalStateException(what + " exited with status " + status);
    }
    return Files.readString(out).trim();
  }
}
