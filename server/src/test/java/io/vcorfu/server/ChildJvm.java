package io.vcorfu.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command that starts a test's child JVM (a node, ZooKeeper, a client process) on this test
 * JVM's class path. Child processes of a test live for seconds, so they compile with the client
 * compiler only and collect with the serial collector: most of what a process test spends is JVM
 * start-up and compilation on the machine's few cores, and the optimizing compiler and parallel
 * collector threads of several children at once starve the processes under test. Behaviour is the
 * same; only peak speed is lower, which no test measures.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * {@code java -Xmx<heap> <flags> [class-data archive] -cp <class path> <mainClass>}, to which
   * arguments are added: this JVM's class path, or the same classes as jars with the archive of
   * {@link ChildClassData} once it is ready.
   */
  public static List<String> command(String heap, String mainClass) {
    ChildClassData.Launch launch = ChildClassData.launch();
    List<String> cmd = baseCommand(heap);
    if (launch.archive() != null) {
      cmd.add("-XX:SharedArchiveFile=" + launch.archive());
      cmd.add("-Xlog:cds=off");
      cmd.add("-Xlog:cds+dynamic=off");
    }
    cmd.add("-cp");
    cmd.add(launch.classPath());
    cmd.add(mainClass);
    return cmd;
  }

  /** {@code java -Xmx<heap>} and the flags every child runs with. */
  static List<String> baseCommand(String heap) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap);
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    return cmd;
  }
}
