package io.vcorfu.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/commands.md is what the commands of this build say about themselves. */
class CommandReferenceTest {
  @Test
  void theCommittedReferenceIsTheOneTheCommandsWrite() throws Exception {
    // The endpoint option's default shows $VCORFU_ENDPOINT when it is set.
    assumeTrue(System.getenv("VCORFU_ENDPOINT") == null, "VCORFU_ENDPOINT is set");
    Path committed = Path.of("..", "docs", "commands.md");
    String written = CommandReference.markdown();
    assertThat(Files.exists(committed) ? Files.readString(committed, StandardCharsets.UTF_8) : "")
        .as(
            "docs/commands.md differs from the commands' own help; write it again with:"
                + " ./mvnw -q -o -pl server process-classes && cp server/target/vcorfu-commands.md"
                + " docs/commands.md")
        .isEqualTo(written);
  }

  @Test
  void everyCommandAndSubcommandIsInTheReference() {
    String md = CommandReference.markdown();
    for (String command :
        new String[] {
          "## vcorfu server",
          "## vcorfu log append",
          "## vcorfu map put",
          "## vcorfu cluster init",
          "## vcorfu acl grant",
          "## vcorfu token create",
          "## vcorfu zookeeper"
        }) {
      assertThat(md).contains(command + "\n");
    }
    assertThat(md).doesNotContain("\u001b[");
  }
}
