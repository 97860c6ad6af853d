package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/vcorfu}'s first-use build lock, on a copy of the script in a checkout of its own whose
 * Maven wrapper and Java are stand-ins that record their calls (the wrapper takes a second and
 * writes the jar): two commands that find the jar missing at once build it once, the second saying
 * it waits for the first; a lock left by a builder that is gone is taken over; the lock is gone
 * once the build is done; the benchmarks' build leaves the server jar a running node reads whole.
 */
class BuildLockTest {
  @TempDir Path root;

  @Test
  void twoCommandsAtOnceBuildOnceAndTheSecondSaysItWaits() throws Exception {
    checkout();
    Process first = vcorfu("one");
    Process second = vcorfu("two");
    Ran a = ran(first);
    Ran b = ran(second);
    assertThat(a.code()).as(a.err()).isZero();
    assertThat(b.code()).as(b.err()).isZero();
    assertThat(Files.readAllLines(root.resolve("builds.log"))).as("builds").hasSize(1);
    assertThat(a.err() + b.err())
        .contains("another vcorfu command is building (process ")
        .contains("waiting for it");
    assertThat(Files.readAllLines(root.resolve("java.log")))
        .as("both commands ran")
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).endsWith("one"))
        .anySatisfy(l -> assertThat(l).endsWith("two"));
    assertThat(root.resolve("target/.vcorfu-build.lock")).doesNotExist();
  }

  @Test
  void aLockLeftByABuilderThatIsGoneIsTakenOver() throws Exception {
    checkout();
    Process gone = new ProcessBuilder("true").start();
    assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Path lock = Files.createDirectories(root.resolve("target/.vcorfu-build.lock"));
    Files.writeString(lock.resolve("pid"), gone.pid() + "\n");
    Ran r = ran(vcorfu("after"));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("waiting");
    assertThat(Files.readAllLines(root.resolve("builds.log"))).hasSize(1);
    assertThat(lock).doesNotExist();
  }

  /**
   * The benchmarks' build also writes the server's jar (it builds the modules it needs): a node
   * started earlier from that jar keeps reading what it started from (it failed to load classes as
   * it stopped, and never exited, when the jar was rewritten in place under it).
   */
  @Test
  void aBenchmarksBuildLeavesTheServerJarARunningNodeReadsWhole() throws Exception {
    checkout();
    Path serverJar =
        Files.createDirectories(root.resolve("server/target")).resolve("vcorfu-server.jar");
    Files.writeString(serverJar, "old\n");
    Files.setLastModifiedTime(
        serverJar,
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
    try (java.nio.channels.FileChannel held = java.nio.channels.FileChannel.open(serverJar)) {
      Ran r = ran(vcorfu("bench", "append"));
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(Files.readString(serverJar)).as("rebuilt").isEqualTo("jar\n");
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16);
      held.read(b, 0);
      assertThat(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8))
          .as("what the node holds")
          .isEqualTo("old\n");
    }
  }

  private record Ran(int code, String err) {}

  private Process vcorfu(String... args) throws IOException {
    java.util.List<String> command =
        new java.util.ArrayList<>(java.util.List.of("bash", root.resolve("bin/vcorfu").toString()));
    command.addAll(java.util.List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("JAVA_HOME", root.resolve("jdk").toString());
    pb.environment().remove("VCORFU_JAVA_OPTS");
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    return pb.start();
  }

  private static Ran ran(Process p) throws Exception {
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("bin/vcorfu did not end within 60 s: " + err);
    }
    return new Ran(p.exitValue(), err);
  }

  /**
   * A checkout with this module's {@code bin/vcorfu}, its sources newer than any jar (there is
   * none), a Maven wrapper that logs the build and writes the jar, and a Java that logs its call.
   */
  private void checkout() throws IOException {
    Path script = Path.of("..", "bin", "vcorfu").toAbsolutePath().normalize();
    Files.createDirectories(root.resolve("bin"));
    Files.copy(script, root.resolve("bin/vcorfu"), StandardCopyOption.COPY_ATTRIBUTES);
    Files.writeString(root.resolve("pom.xml"), "<project/>\n");
    Files.createDirectories(root.resolve("server/src/main"));
    Files.writeString(root.resolve("server/pom.xml"), "<project/>\n");
    Files.writeString(root.resolve("server/src/main/Source.java"), "class Source {}\n");
    executable(
        root.resolve("mvnw"),
        "#!/usr/bin/env bash\n"
            + "echo \"$$ $*\" >> \""
            + root.resolve("builds.log")
            + "\"\n"
            + "sleep 1\n"
            + "mkdir -p server/target && echo jar > server/target/vcorfu-server.jar\n"
            + "if [[ \" $* \" == *\" benchmarks \"* ]]; then\n"
            + "  mkdir -p benchmarks/target && echo all > benchmarks/target/vcorfu-all.jar\n"
            + "fi\n");
    Files.createDirectories(root.resolve("jdk/bin"));
    executable(
        root.resolve("jdk/bin/java"),
        "#!/usr/bin/env bash\necho \"java $*\" >> \"" + root.resolve("java.log") + "\"\n");
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
