package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The class-data archive of the test's child JVMs is made and a child can map it: started with
 * {@code -Xshare:on} (which makes a JVM that cannot map its archive exit with an error instead of
 * running without it), a child on the packed class path runs the command line.
 */
class ChildClassDataTest {

  @Test
  void aChildMapsTheArchiveOfThePackedClassPath() throws Exception {
    ChildClassData.Launch launch = ChildClassData.awaitArchive(Duration.ofMinutes(11));
    assertThat(launch).as("the archive was made (see target/child-jvm/*/training.log)").isNotNull();
    assertThat(ChildJvm.command("128m", "x")).contains("-XX:SharedArchiveFile=" + launch.archive());

    List<String> cmd = ChildJvm.command("128m", "io.vcorfu.server.cli.VcorfuCli");
    cmd.add(1, "-Xshare:on");
    cmd.add("--version");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child exited").isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out).startsWith("vcorfu ");
    } finally {
      p.destroyForcibly();
    }
  }
}
