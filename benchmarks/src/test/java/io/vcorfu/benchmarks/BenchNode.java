package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.server.LocalNode;
import io.vcorfu.server.cli.VcorfuCli;
import java.io.ByteArrayOutputStream;
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
 * them. Not thread-safe: {@link #run} swaps {@code System.out} while the command runs.
 */
final class BenchNode implements BeforeAllCallback, AfterAllCallback {
  private LocalNode node;
  private String endpoint;

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
    List<String> argv = new ArrayList<>(List.of(args.split(" ")));
    argv.addAll(List.of("--endpoint", endpoint));
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream old = System.out;
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = VcorfuCli.commandLine(command).execute(argv.toArray(String[]::new));
    } finally {
      System.setOut(old);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertThat(code).as(out).isZero();
    return List.of(out.split("\n"));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    node.close();
  }
}
