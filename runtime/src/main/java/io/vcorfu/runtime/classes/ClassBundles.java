package io.vcorfu.runtime.classes;

import io.vcorfu.client.ClassBundle;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.security.CodeSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The class bundle of an object class ({@link ClassBundle}): the class's own class file and those
 * of every class it references, transitively, whose class file its loader finds in the class's own
 * code source (the same directory or jar). Classes of vcorfu ({@code io.vcorfu.*}), of the JDK and
 * of other code sources (libraries) are left out: a host must have those already. A class loaded by
 * name only (reflection) is not seen, and must be on the host's class path too.
 *
 * <p>Computed once per class (cached with the class, so it does not keep the class loaded).
 * Thread-safe.
 */
public final class ClassBundles {
  /** The most classes one bundle gathers; a class that references more has no bundle. */
  public static final int MAX_CLASSES = 4096;

  private static final ClassValue<Optional<ClassBundle>> BUNDLES =
      new ClassValue<>() {
        @Override
        protected Optional<ClassBundle> computeValue(Class<?> type) {
          return Optional.ofNullable(gather(type));
        }
      };

  private ClassBundles() {}

  /**
   * The bundle of {@code type}, or null when it has none: a class of vcorfu or the JDK, one without
   * a code source whose class files its loader can read, or one referencing more than {@link
   * #MAX_CLASSES} classes of its code source. A class without a bundle is named by name only, as a
   * host's class path has it.
   */
  public static ClassBundle of(Class<?> type) {
    return BUNDLES.get(type).orElse(null);
  }

  /** Whether classes named {@code name} are never bundled: vcorfu's and the platform's. */
  public static boolean isShared(String name) {
    return name.startsWith("io.vcorfu.")
        || name.startsWith("java.")
        || name.startsWith("javax.")
        || name.startsWith("jdk.")
        || name.startsWith("sun.")
        || name.startsWith("com.sun.");
  }

  private static ClassBundle gather(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    if (loader == null || type.isArray() || type.isPrimitive() || isShared(type.getName())) {
      return null;
    }
    CodeSource source = type.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return null;
    }
    String location = source.getLocation().toString();
    Map<String, byte[]> classes = new TreeMap<>();
    Set<String> seen = new HashSet<>();
    Deque<String> todo = new ArrayDeque<>();
    todo.add(type.getName());
    seen.add(type.getName());
    try {
      while (!todo.isEmpty()) {
        String name = todo.poll();
        byte[] file = classFile(loader, name, location);
        if (file == null) {
          if (name.equals(type.getName())) {
            return null;
          }
          continue;
        }
        if (classes.size() == MAX_CLASSES) {
          return null;
        }
        classes.put(name, file);
        for (String ref : ClassFileReader.read(file).referenced()) {
          if (!isShared(ref) && seen.add(ref)) {
            todo.add(ref);
          }
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
    return ClassBundle.of(type.getName(), classes);
  }

  /**
   * The class file of {@code name} if {@code loader} finds it in the code source {@code location}.
   */
  private static byte[] classFile(ClassLoader loader, String name, String location)
      throws IOException {
    URL url = loader.getResource(name.replace('.', '/') + ".class");
    if (url == null || !inSource(url.toString(), location)) {
      return null;
    }
    try (InputStream in = url.openStream()) {
      return in.readAllBytes();
    }
  }

  /** Whether the resource at {@code url} is in the directory or jar at {@code location}. */
  static boolean inSource(String url, String location) {
    if (location.endsWith("/")) {
      return url.startsWith(location);
    }
    return url.startsWith("jar:" + location + "!/");
  }
}
