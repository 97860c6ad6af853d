package io.vcorfu.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --cpu-scheduling batch|normal}: the Linux scheduling policy of every thread of a node.
 *
 * <p>A node's network threads sleep in {@code epoll_wait} between requests and are woken by each
 * message that arrives. Under the normal policy ({@code SCHED_OTHER}) a woken thread may preempt
 * the thread running on that processor at once, so on a host where the node shares its processors
 * with its clients every request can cost two switches between threads, paid in the kernel. {@code
 * SCHED_BATCH} (the default) keeps the thread's share of the processors and its priority but lets a
 * thread it wakes wait for the running thread's slice to end or for it to block: requests that
 * arrive meanwhile are then read together. It needs no privilege; threads the process starts later
 * inherit it. {@code normal} leaves the threads as an ordinary process.
 *
 * <p>Where the policy cannot be set (not Linux, no {@code chrt} from util-linux) the node runs
 * unchanged and says so once in its log: the policy changes how the processors are shared, never
 * what the node does.
 */
final class CpuScheduling {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(CpuScheduling.class);

  /**
   * A policy: its name on the command line, its number and name in the kernel, its {@code chrt}
   * flag.
   */
  enum Policy {
    BATCH("batch", 3, "SCHED_BATCH", "--batch"),
    NORMAL("normal", 0, "SCHED_OTHER", "--other");

    final String flag;
    final int kernel;
    final String kernelName;
    final String chrt;

    Policy(String flag, int kernel, String kernelName, String chrt) {
      this.flag = flag;
      this.kernel = kernel;
      this.kernelName = kernelName;
      this.chrt = chrt;
    }
  }

  @Option(
      names = "--cpu-scheduling",
      paramLabel = "POLICY",
      defaultValue = "${env:VCORFU_CPU_SCHEDULING:-batch}",
      converter = PolicyConverter.class,
      description =
          "Linux scheduling policy of the node's threads: batch (SCHED_BATCH: a thread woken by a"
              + " message does not preempt the one running, fewer switches where clients share the"
              + " processors) or normal; default ${DEFAULT-VALUE}, or VCORFU_CPU_SCHEDULING's"
              + " value.")
  Policy policy;

  /**
   * Puts every thread of this process under the chosen policy, before the node starts its threads
   * (which inherit it), and logs what was done or why it could not be.
   */
  void applyToThisProcess() {
    long pid = ProcessHandle.current().pid();
    String failure = null;
    // A thread started while chrt walks the task list by one not yet moved keeps the old policy:
    // walk again until none is left (the node has not started its own threads yet).
    for (int pass = 0; pass < 3 && failure == null && !allUnder(pid, policy); pass++) {
      failure = apply(pid, policy);
    }
    if (failure == null && allUnder(pid, policy)) {
      LOG.info("threads run under {} (--cpu-scheduling {})", policy.kernelName, policy.flag);
    } else {
      LOG.warn(
          "could not put the node's threads under {} ({}); they run as the process was started",
          policy.kernelName,
          failure != null ? failure : "threads kept their policy");
    }
  }

  /** Whether process {@code pid} lists its threads and every one runs under {@code policy}. */
  static boolean allUnder(long pid, Policy policy) {
    Map<Long, Integer> now = policies(pid);
    return !now.isEmpty() && now.values().stream().allMatch(p -> p == policy.kernel);
  }

  /**
   * Sets {@code policy} on every thread of process {@code pid} with {@code chrt --all-tasks}.
   * Returns null when done, else why not (one line).
   */
  static String apply(long pid, Policy policy) {
    if (!Files.isDirectory(Path.of("/proc", Long.toString(pid), "task"))) {
      return "no /proc task list: not Linux";
    }
    ProcessBuilder chrt =
        new ProcessBuilder("chrt", policy.chrt, "--all-tasks", "--pid", "0", Long.toString(pid))
            .redirectErrorStream(true);
    try {
      Process p = chrt.start();
      // Read to its end (chrt exits right after it writes), then its status.
      byte[] said = p.getInputStream().readAllBytes();
      int status = p.waitFor();
      if (status != 0) {
        return "chrt exited "
            + status
            + ": "
            + new String(said, StandardCharsets.UTF_8).strip().replace('\n', ' ');
      }
      return null;
    } catch (IOException e) {
      return "cannot run chrt (util-linux): " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /**
   * Each thread of process {@code pid} and its policy number (0 normal, 3 batch), from {@code
   * /proc/PID/task/TID/stat}; empty where there is no such list. Threads that end while it is read
   * are left out.
   */
  static Map<Long, Integer> policies(long pid) {
    Map<Long, Integer> out = new TreeMap<>();
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    if (!Files.isDirectory(tasks)) {
      return out;
    }
    try (DirectoryStream<Path> all = Files.newDirectoryStream(tasks)) {
      for (Path task : all) {
        try {
          String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
          // Fields after the command name (which may hold blanks) start at the third, the state;
          // the policy is the 41st.
          String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          out.put(Long.parseLong(task.getFileName().toString()), Integer.parseInt(rest[38]));
        } catch (IOException e) {
          // the thread ended
        }
      }
    } catch (IOException e) {
      // the process ended
    }
    return out;
  }

  /** Parses {@code batch} or {@code normal}. */
  static final class PolicyConverter implements ITypeConverter<Policy> {
    @Override
    public Policy convert(String value) {
      for (Policy p : Policy.values()) {
        if (p.flag.equalsIgnoreCase(value.strip())) {
          return p;
        }
      }
      throw new TypeConversionException("'" + value + "' is not a policy: give batch or normal");
    }
  }
}
