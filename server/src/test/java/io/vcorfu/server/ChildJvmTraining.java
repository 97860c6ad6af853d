package io.vcorfu.server;

import io.vcorfu.server.cli.ClassTraining;
import java.io.File;
import java.io.IOException;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The training child behind {@link ChildClassData}'s archive: loads every class of the jars a
 * test's children run (the product's modules and their libraries: ZooKeeper, Curator, Netty,
 * Protocol Buffers, Jackson, logging; the test frameworks' jars are skipped) without initializing
 * them (not those of signed jars, which no archive holds), then runs the server jar's own training
 * ({@link ClassTraining}: a node and the common commands against it), which exits and so writes the
 * archive. A class that cannot load here (an optional dependency missing) is left out of the
 * archive and loads as usual in a child.
 */
public final class ChildJvmTraining {
  private ChildJvmTraining() {}

  public static void main(String[] args) throws IOException {
    ClassLoader loader = ChildJvmTraining.class.getClassLoader();
    int loaded = 0;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = new File(entry).getName();
      if (!entry.endsWith(".jar") || testFramework(name)) {
        continue;
      }
      try (JarFile jar = new JarFile(entry)) {
        if (signed(jar)) {
          continue; // the JVM archives no class of a signed jar: loading them here is waste
        }
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          String path = e.nextElement().getName();
          if (!path.endsWith(".class")
              || path.startsWith("META-INF/")
              || path.endsWith("module-info.class")
              || path.endsWith("package-info.class")) {
            continue;
          }
          String className = path.substring(0, path.length() - ".class".length()).replace('/', '.');
          try {
            Class.forName(className, false, loader);
            loaded++;
          } catch (LinkageError | ClassNotFoundException ignored) {
            // An optional dependency is missing: the class stays out of the archive.
          }
        }
      }
    }
    System.out.println("loaded " + loaded + " classes");
    ClassTraining.main(args);
  }

  /**
   * True when {@code jar} carries a signature (a {@code META-INF/*.SF} file): class-data sharing
   * leaves the classes of signed jars out of an archive (here BouncyCastle's, some 7,500 classes
   * that only the test JVMs use: they cost the training about a fifth of its processor time).
   */
  private static boolean signed(JarFile jar) {
    return jar.stream()
        .map(JarEntry::getName)
        .anyMatch(n -> n.startsWith("META-INF/") && n.endsWith(".SF") && n.indexOf('/', 9) < 0);
  }

  private static boolean testFramework(String jarName) {
    return jarName.startsWith("junit-")
        || jarName.startsWith("assertj-")
        || jarName.startsWith("awaitility")
        || jarName.startsWith("opentest4j")
        || jarName.startsWith("apiguardian")
        || jarName.startsWith("hamcrest")
        || jarName.startsWith("curator-test");
  }
}
