package io.vcorfu.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.runtime.annotations.Accessor;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Object classes compiled while a test runs, into a directory of their own, so that no node's class
 * path has them: {@code plugin.Tally}, whose {@code total()} returns the sum of what {@code add}
 * added times a factor that differs by version ({@code addAndGet} adds and returns it), and which
 * keeps a {@code plugin.Tally$Step} record per addition (a second class of the bundle).
 */
final class PluginClasses {
  static final String TYPE = "plugin.Tally";

  private PluginClasses() {}

  private static String source(int factor) {
    return """
    package plugin;

    import io.vcorfu.runtime.annotations.Accessor;
    import io.vcorfu.runtime.annotations.Mutator;
    import io.vcorfu.runtime.annotations.MutatorAccessor;
    import java.util.ArrayList;
    import java.util.List;

    public class Tally {
      record Step(long n) {}

      final List<Step> steps = new ArrayList<>();

      @Mutator
      public void add(long n) {
        steps.add(new Step(n));
      }

      @MutatorAccessor
      public long addAndGet(long n) {
        add(n);
        return total();
      }

      @Accessor
      public long total() {
        long t = 0;
        for (Step s : steps) {
          t += s.n();
        }
        return t * FACTOR;
      }
    }
    """
        .replace("FACTOR", Integer.toString(factor));
  }

  /**
   * Compiles version {@code factor} of {@code plugin.Tally} under {@code dir} and returns a loader
   * of it whose parent is the test's own loader.
   */
  static URLClassLoader compile(Path dir, int factor) throws Exception {
    Path src = Files.createDirectories(dir.resolve("src/plugin")).resolve("Tally.java");
    Files.writeString(src, source(factor));
    Path classes = dir.resolve("classes");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        javac.run(
            null,
            null,
            err,
            "-d",
            classes.toString(),
            "-classpath",
            // Only what the source imports: javac reads every jar of a class path it is given,
            // and the test JVM's is the whole build's.
            Path.of(Accessor.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString(),
            src.toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return new URLClassLoader(
        new URL[] {classes.toUri().toURL()}, PluginClasses.class.getClassLoader());
  }

  /** Calls {@code method} on {@code target} reflectively, throwing what it throws. */
  static Object call(Object target, String method, Object... args) throws Throwable {
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
}
