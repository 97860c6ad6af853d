package io.vcorfu.server.views;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClassesRefusedException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.Node;
import io.vcorfu.server.NodeConfig;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The remote-view host loads object classes from the class path it was started with. */
class HostClassPathTest {
  private static final String SOURCE =
      """
      package plugin;

      import io.vcorfu.runtime.annotations.Accessor;
      import io.vcorfu.runtime.annotations.Mutator;

      public class Tally {
        long total;

        @Mutator
        public void add(long n) {
          total += n;
        }

        @Accessor
        public long total() {
          return total;
        }
      }
      """;

  /**
   * Compiles {@code plugin.Tally} into {@code dir}, a class the server's own class path does not
   * have.
   */
  private static void compile(Path dir) throws Exception {
    Path src = Files.createDirectories(dir.resolve("src/plugin")).resolve("Tally.java");
    Files.writeString(src, SOURCE);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        javac.run(
            null,
            null,
            err,
            "-d",
            dir.resolve("classes").toString(),
            "-classpath",
            System.getProperty("java.class.path"),
            src.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
  }

  private static Object call(Object target, String method, Object... args) throws Throwable {
    for (var m : target.getClass().getMethods()) {
      if (m.getName().equals(method) && m.getParameterCount() == args.length) {
        try {
          return m.invoke(target, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      }
    }
    throw new AssertionError("no method " + method);
  }

  @Test
  void hostLoadsObjectClassesFromItsConfiguredClassPathOnly(@TempDir Path tmp) throws Throwable {
    compile(tmp);
    Path classes = tmp.resolve("classes");
    assertThatThrownBy(() -> Class.forName("plugin.Tally"))
        .isInstanceOf(ClassNotFoundException.class);
    try (InJvmTransport transport = new InJvmTransport();
        URLClassLoader client =
            new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
        Node with =
            Node.start(
                NodeConfig.inMemory(new Endpoint("with-plugin", 9000))
                    .withViews(
                        List.of(classes), NodeConfig.DEFAULT_CHECKPOINT_EVERY, Duration.ofHours(1)),
                transport);
        Node without =
            Node.start(NodeConfig.inMemory(new Endpoint("without-plugin", 9000)), transport)) {
      Class<?> tally = client.loadClass("plugin.Tally");
      try (VCorfuRuntime rt =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(
                      transport, with.endpoint(), StreamLogOptions.defaults()));
          VCorfuRuntime other =
              VCorfuRuntime.using(
                  ClusterStreamLog.connect(
                      transport, without.endpoint(), StreamLogOptions.defaults()))) {
        Object remote = rt.objects().builder("tally", tally).remote().open();
        call(remote, "add", 4L);
        call(remote, "add", 5L);
        assertThat(call(remote, "total")).isEqualTo(9L);

        Object unhosted = other.objects().builder("tally", tally).remote().open();
        // The class is not on its class path, and the node does not take classes from clients.
        assertThatThrownBy(() -> call(unhosted, "total"))
            .isInstanceOf(ClassesRefusedException.class)
            .hasMessageContaining("does not have class plugin.Tally")
            .hasMessageContaining("--classpath");
      }
    }
  }
}
