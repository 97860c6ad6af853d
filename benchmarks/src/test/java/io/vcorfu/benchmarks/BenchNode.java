package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.server.LocalNode;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-memory node on a free 127.0.0.1 port for a benchmark test class (the server's {@link
 * LocalNode}), and a way to run a bench command against it. Register it as a static
 * {@code @RegisterExtension} field: it starts the node before the class's tests and stops it after
 * them. Not thread-safe: {@link #run} swaps {@code System.out} and {@code System.err} while the
 * command runs.
 */
final class BenchNode implements BeforeAllCallback, AfterAllCallback {
  private LocalNode node;
  private String endpoint;

  /**
   * What a command printed: its standard output and standard error, split into lines, and every
   * complete line of both in the order it was completed (standard error's prefixed {@code "err: "},
   * standard output's {@code "out: "}).
   */
  record Printed(List<String> out, List<String> err, List<String> both) {}

  /** Starts the node and waits until it serves. */
  @Override
  public void beforeAll(ExtensionContext context) {
    node = LocalNode.start();
    endpoint = node.endpoint().toString();
  }

  /** The node's {@code host:port}. */
  String endpoint() {
    return endpoint;
  }

  /**
   * Runs {@code command} with the space-separated {@code args} plus {@code --endpoint} of this
   * node, echoes what it printed, asserts it exited 0 and returns its output lines.
   */
  List<String> run(Object command, String args) {
    return runPrinting(command, args).out();
  }

  /** As {@link #run}, asserting it exited {@code expectedCode}. */
  List<String> run(Object command, String args, int expectedCode) {
    return runPrinting(command, args, expectedCode).out();
  }

  /** As {@link #run}, returning standard error too. */
  Printed runPrinting(Object command, String args) {
    return runPrinting(command, args, 0);
  }

  /** As {@link #runPrinting(Object, String)}, asserting it exited {@code expectedCode}. */
  Printed runPrinting(Object command, String args, int expectedCode) {
    List<String> argv = new ArrayList<>(List.of(args.split(" ")));
    argv.addAll(List.of("--endpoint", endpoint));
    List<String> both = new ArrayList<>();
    Lines out = new Lines("out: ", both);
    Lines err = new Lines("err: ", both);
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = BenchCli.commandLine(command).execute(argv.toArray(String[]::new));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    String outText = out.text();
    String errText = err.text();
    System.out.print(outText);
    System.err.print(errText);
    assertThat(code).as(outText + errText).isEqualTo(expectedCode);
    synchronized (both) {
      return new Printed(
          List.of(outText.split("\n")), List.of(errText.split("\n")), List.copyOf(both));
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    node.close();
  }

  /**
   * Keeps what is written to it, and adds each line to {@code both} (prefixed) once its newline
   * arrives.
   */
  private static final class Lines extends OutputStream {
    private final String prefix;
    private final List<String> both;
    private final ByteArrayOutputStream all = new ByteArrayOutputStream();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    Lines(String prefix, List<String> both) {
      this.prefix = prefix;
      this.both = both;
    }

    @Override
    public synchronized void write(int b) {
      all.write(b);
      if (b == '\n') {
        synchronized (both) {
          both.add(prefix + line.toString(StandardCharsets.UTF_8));
        }
        line.reset();
      } else {
        line.write(b);
      }
    }

    synchronized String text() {
      return all.toString(StandardCharsets.UTF_8);
    }
  }
}
