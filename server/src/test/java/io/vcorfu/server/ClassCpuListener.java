package io.vcorfu.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Records the processor time each top-level test class costs, in this test JVM and in the processes
 * it started and reaped (server nodes, ZooKeeper, client processes): {@code /proc/self/stat}'s own
 * and reaped children's user and system ticks, read when the class starts and when it ends. One
 * line per class ({@code cpu-seconds wall-seconds class}) is appended to {@code
 * target/test-cpu/PID.tsv}; {@code .ci/slowest.sh} sums them. Wall time alone misleads on a machine
 * of two processors shared by four forks: a class that waits out a timeout takes long but costs the
 * others nothing. A process a class leaves running is charged to the class that runs when it is
 * reaped. Outside Linux it records nothing.
 */
public final class ClassCpuListener implements TestExecutionListener {
  private static final Path STAT = Path.of("/proc/self/stat");
  private static final double TICKS_PER_SECOND = 100.0;

  private final Map<String, long[]> started = new HashMap<>();

  @Override
  public synchronized void executionStarted(TestIdentifier id) {
    String cls = topLevelClass(id);
    if (cls != null) {
      long ticks = ticks();
      if (ticks >= 0) {
        started.put(id.getUniqueId(), new long[] {ticks, System.nanoTime()});
      }
    }
  }

  @Override
  public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
    long[] start = started.remove(id.getUniqueId());
    String cls = topLevelClass(id);
    if (start == null || cls == null) {
      return;
    }
    long ticks = ticks();
    if (ticks < 0) {
      return;
    }
    String line =
        String.format(
            Locale.ROOT,
            "%.2f\t%.2f\t%s%n",
            (ticks - start[0]) / TICKS_PER_SECOND,
            (System.nanoTime() - start[1]) / 1e9,
            cls);
    try {
      Path dir = Path.of("target", "test-cpu");
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve(ProcessHandle.current().pid() + ".tsv"),
          line,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // A record of where time went; the tests' outcome does not depend on it.
    }
  }

  /** The class's name when {@code id} is a top-level test class, else null. */
  private static String topLevelClass(TestIdentifier id) {
    if (id.getSource().orElse(null) instanceof ClassSource source
        && source.getJavaClass().getEnclosingClass() == null) {
      return source.getClassName();
    }
    return null;
  }

  /**
   * This process's user and system ticks plus those of its reaped children, or -1 where {@code
   * /proc} is not there.
   */
  private static long ticks() {
    try {
      String stat = Files.readString(STAT, StandardCharsets.US_ASCII);
      // The command name (field 2) may hold spaces; the fields after it follow its closing ')'.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      // utime, stime, cutime, cstime are fields 14-17 of the line, 12-15 after the name.
      return Long.parseLong(f[11])
          + Long.parseLong(f[12])
          + Long.parseLong(f[13])
          + Long.parseLong(f[14]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
