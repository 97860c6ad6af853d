package io.vcorfu.runtime.classes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClassBundle;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A class's bundle holds its class file and those of the classes of its own code source it refers
 * to, found in its constant pool (also a type named only in a declaration), and nothing of vcorfu,
 * the JDK or libraries; its digest is the digest of those class files.
 */
class ClassBundlesTest {
  static final class Part {}

  /** Names {@link Part} only in a method's declaration. */
  static final class Declares {
    void take(Part p) {}
  }

  private static byte[] classFile(Class<?> c) throws Exception {
    String path = "/" + c.getName().replace('.', '/') + ".class";
    try (InputStream in = c.getResourceAsStream(path)) {
      return in.readAllBytes();
    }
  }

  @Test
  void aClassFileNamesItselfAndWhatItRefersTo() throws Exception {
    ClassFileReader.Names names = ClassFileReader.read(classFile(Declares.class));
    assertThat(names.self()).isEqualTo(Declares.class.getName());
    assertThat(names.referenced()).contains(Part.class.getName(), "java.lang.Object");
    assertThat(names.referenced()).doesNotContain(Declares.class.getName());

    assertThat(ClassFileReader.read(classFile(String.class)).self()).isEqualTo("java.lang.String");
  }

  @Test
  void whatIsNotAClassFileIsRefused() throws Exception {
    assertThatThrownBy(() -> ClassFileReader.read(new byte[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a class file");
    byte[] cut = classFile(Declares.class);
    assertThatThrownBy(() -> ClassFileReader.read(java.util.Arrays.copyOf(cut, 40)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Compiles {@code bundled.Declares}, which names {@code bundled.Part} only in a method's
   * declaration and uses a vcorfu annotation and a JDK class, into {@code dir}, outside this
   * module's class path (vcorfu's own packages are never bundled).
   */
  private static URLClassLoader compiled(Path dir) throws Exception {
    Path src = Files.createDirectories(dir.resolve("src/bundled"));
    Files.writeString(src.resolve("Part.java"), "package bundled; public class Part {}");
    Files.writeString(src.resolve("Unused.java"), "package bundled; public class Unused {}");
    Files.writeString(
        src.resolve("Declares.java"),
        """
        package bundled;

        public class Declares {
          @io.vcorfu.runtime.annotations.Accessor
          public int size(java.util.List<String> l) {
            return l.size();
          }

          public void take(Part p) {}
        }
        """);
    Path classes = dir.resolve("classes");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        ToolProvider.getSystemJavaCompiler()
            .run(
                null,
                null,
                err,
                "-d",
                classes.toString(),
                "-classpath",
                System.getProperty("java.class.path"),
                src.resolve("Part.java").toString(),
                src.resolve("Unused.java").toString(),
                src.resolve("Declares.java").toString());
    assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return new URLClassLoader(
        new URL[] {classes.toUri().toURL()}, ClassBundlesTest.class.getClassLoader());
  }

  @Test
  void aBundleHoldsTheClassesOfItsOwnCodeSourceOnly(@TempDir Path tmp) throws Exception {
    try (URLClassLoader loader = compiled(tmp)) {
      Class<?> declares = loader.loadClass("bundled.Declares");
      ClassBundle bundle = ClassBundles.of(declares);
      assertThat(bundle.type()).isEqualTo("bundled.Declares");
      assertThat(bundle.classes().keySet()).containsExactly("bundled.Declares", "bundled.Part");
      assertThat(bundle.classes().get("bundled.Part"))
          .isEqualTo(Files.readAllBytes(tmp.resolve("classes/bundled/Part.class")));
      assertThat(bundle.hasDigest(ClassBundle.digestOf(bundle.classes()))).isTrue();
      assertThat(ClassBundles.of(declares)).isSameAs(bundle);
    }
    assertThat(ClassBundles.of(String.class)).isNull();
    assertThat(ClassBundles.of(VCorfuRuntime.class)).isNull();
    assertThat(ClassBundles.of(Declares.class)).as("a class of vcorfu's packages").isNull();
  }

  @Test
  void aClassFromAJarHasTheSameBundleAsFromItsDirectory(@TempDir Path tmp) throws Exception {
    byte[] fromDirectory;
    try (URLClassLoader loader = compiled(tmp)) {
      fromDirectory = ClassBundles.of(loader.loadClass("bundled.Declares")).digest();
    }
    Path jar = tmp.resolve("bundled.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (String name : List.of("Declares", "Part", "Unused")) {
        out.putNextEntry(new JarEntry("bundled/" + name + ".class"));
        out.write(Files.readAllBytes(tmp.resolve("classes/bundled/" + name + ".class")));
        out.closeEntry();
      }
    }
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {jar.toUri().toURL()}, getClass().getClassLoader())) {
      ClassBundle fromJar = ClassBundles.of(loader.loadClass("bundled.Declares"));
      assertThat(fromJar.classes().keySet()).containsExactly("bundled.Declares", "bundled.Part");
      assertThat(fromJar.digest()).isEqualTo(fromDirectory);
    }
  }

  @Test
  void theDigestDependsOnEveryNameAndByte() {
    byte[] a = {1, 2};
    byte[] b = {3};
    byte[] digest = ClassBundle.digestOf(Map.of("x.A", a, "x.B", b));
    assertThat(ClassBundle.digestOf(Map.of("x.B", b, "x.A", a))).isEqualTo(digest);
    assertThat(ClassBundle.digestOf(Map.of("x.A", new byte[] {1}, "x.B", new byte[] {2, 3})))
        .isNotEqualTo(digest);
    assertThat(ClassBundle.digestOf(Map.of("x.A", a, "x.C", b))).isNotEqualTo(digest);
  }
}
