package io.vcorfu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No main source files of any module import each other in a circle: a file that reaches itself
 * through the files it refers to cannot be understood, tested or moved apart from the others of its
 * circle. What one side of a circle uses of the other moves to the lower one (a constant, a helper,
 * an interface), or a Javadoc-only import becomes a fully qualified link.
 *
 * <p>The graph: main source file A refers to main source file B when A names a class of B's file,
 * of another package, by an import statement ({@code import io.vcorfu.x.B;}, also a static import
 * of one of B's members and an import of a class nested in B) or by a fully qualified name in its
 * code ({@code io.vcorfu.x.B} written inline). An import counts even when only Javadoc uses it; a
 * fully qualified name in a comment or a string literal does not. A class of the same package needs
 * no import, so references within a package are not edges: the graph is the one the import lists
 * show. (Checkstyle allows one top-level class per file and no star imports, so a file is named by
 * its one class and every import names a class.)
 *
 * <p>A circle is a strongly connected component of more than one file (Tarjan's algorithm). The
 * circles still allowed are listed in {@link #ALLOWED}, each with why it stays; the list only
 * shrinks (a listed circle that no longer exists, as listed, fails the test until it is taken off
 * the list or replaced by what is left of it).
 */
class ImportCircleTest {
  private static final String RUNTIME = "runtime/src/main/java/io/vcorfu/runtime/";

  /**
   * Circles of main source files still allowed, each as its files (path from the repository root)
   * with a comment saying why it cannot be broken by a small refactor.
   */
  private static final List<Set<String>> ALLOWED = List.of();

  @Test
  void noMainSourceFilesImportEachOtherInACircle() throws IOException {
    Path root = MainSources.root();
    Map<String, String> sources = MainSources.read(root);
    assertThat(sources).as("main sources found").containsKey(RUNTIME + "VCorfuRuntime.java");
    Map<String, Map<String, Set<String>>> graph = graph(sources);
    assertThat(graph.get(RUNTIME + "VCorfuRuntime.java"))
        .as("references found")
        .containsKey(RUNTIME + "smr/RuntimeCore.java");

    Map<String, Set<String>> edges = new TreeMap<>();
    graph.forEach((file, refs) -> edges.put(file, refs.keySet()));
    List<List<String>> circles = circles(edges);
    List<String> wrong = new ArrayList<>();
    for (List<String> circle : circles) {
      if (ALLOWED.contains(Set.copyOf(circle))) {
        continue;
      }
      boolean shrunk = ALLOWED.stream().anyMatch(a -> a.containsAll(circle));
      wrong.add(
          (shrunk
                  ? "circle shrunk: put it in ImportCircleTest.ALLOWED instead of the one it was"
                  : "new circle: break it (move what one side uses of the other to the lower one)")
              + describe(circle, graph));
    }
    Set<Set<String>> found = new HashSet<>();
    circles.forEach(c -> found.add(Set.copyOf(c)));
    ALLOWED.stream()
        .filter(a -> !found.contains(a))
        .forEach(
            a ->
                wrong.add(
                    "listed in ImportCircleTest.ALLOWED but gone as listed: take it off "
                        + new TreeSet<>(a)));
    assertThat(wrong).as("circles of main source files").isEmpty();
  }

  /** The cycle finder itself, on small graphs whose circles are known. */
  @Test
  void theCycleFinderFindsTwoAndThreeFileCirclesAndNothingInAnAcyclicGraph() {
    Map<String, Set<String>> withCircles = new HashMap<>();
    withCircles.put("a", Set.of("b"));
    withCircles.put("b", Set.of("a", "c"));
    withCircles.put("c", Set.of("d"));
    withCircles.put("d", Set.of("e"));
    withCircles.put("e", Set.of("c", "f"));
    withCircles.put("f", Set.of());
    withCircles.put("g", Set.of("g", "a"));
    assertThat(circles(withCircles)).containsExactly(List.of("a", "b"), List.of("c", "d", "e"));

    Map<String, Set<String>> acyclic = new HashMap<>();
    acyclic.put("a", Set.of("b", "c"));
    acyclic.put("b", Set.of("c", "d"));
    acyclic.put("c", Set.of("d"));
    acyclic.put("d", Set.of());
    assertThat(circles(acyclic)).isEmpty();
  }

  /** What the scan counts as a reference, on a small source. */
  @Test
  void importsAndInlineNamesAreReferencesCommentsStringsAndTheSamePackageAreNot() {
    Map<String, String> sources = new TreeMap<>();
    sources.put("m/io/vcorfu/a/A.java", "package io.vcorfu.a;\nclass A {}\n");
    sources.put("m/io/vcorfu/a/Same.java", "package io.vcorfu.a;\nclass Same {}\n");
    for (String name : List.of("B", "C", "D", "E", "F", "G", "H")) {
      sources.put("m/io/vcorfu/b/" + name + ".java", "package io.vcorfu.b;\nclass " + name + " {}");
    }
    sources.put("m/io/vcorfu/c/Other.java", "package io.vcorfu.c;\nclass Other {}\n");
    sources.put(
        "m/io/vcorfu/c/User.java",
        """
        package io.vcorfu.c;

        import io.vcorfu.b.B;
        import static io.vcorfu.b.C.helper;
        import io.vcorfu.b.D.Nested;
        import io.vcorfu.c.User.Inner;

        /** See {@link io.vcorfu.b.E}. */
        class User {
          // io.vcorfu.b.F
          String s = "io.vcorfu.b.G";
          String t = \"""
              io.vcorfu.b.G \\\""" still a text block
              \""";
          char q = '"';
          io.vcorfu.b.H h = new io.vcorfu.a.Same();
          io.vcorfu.c.Other o = null;
        }
        """);
    Map<String, Set<String>> from = graph(sources).get("m/io/vcorfu/c/User.java");
    assertThat(from.keySet())
        .containsExactlyInAnyOrder(
            "m/io/vcorfu/b/B.java",
            "m/io/vcorfu/b/C.java",
            "m/io/vcorfu/b/D.java",
            "m/io/vcorfu/b/H.java",
            "m/io/vcorfu/a/Same.java");
    assertThat(from.get("m/io/vcorfu/b/C.java")).containsExactly("io.vcorfu.b.C.helper");
    assertThat(graph(sources).get("m/io/vcorfu/a/A.java")).isEmpty();
  }

  private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");
  private static final Pattern PROJECT_NAME =
      Pattern.compile("(?<![\\w$.])io\\s*\\.\\s*vcorfu(?:\\s*\\.\\s*[\\w$]+)+");

  /**
   * For each source file (by path), the files of other packages it refers to, each with the names
   * it refers to them by.
   */
  static Map<String, Map<String, Set<String>>> graph(Map<String, String> sources) {
    Map<String, String> code = new TreeMap<>();
    Map<String, String> packageOf = new HashMap<>();
    Map<String, String> fileOf = new HashMap<>();
    sources.forEach(
        (path, text) -> {
          String stripped = code(text);
          Matcher p = PACKAGE.matcher(stripped);
          String pkg = p.find() ? p.group(1) : "";
          String simple = path.substring(path.lastIndexOf('/') + 1, path.length() - 5);
          fileOf.put(pkg.isEmpty() ? simple : pkg + "." + simple, path);
          packageOf.put(path, pkg);
          code.put(path, p.find(0) ? stripped.substring(p.end()) : stripped);
        });
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    code.forEach(
        (path, text) -> {
          Map<String, Set<String>> refs = new TreeMap<>();
          Matcher m = PROJECT_NAME.matcher(text);
          while (m.find()) {
            String name = m.group().replaceAll("\\s", "");
            String target = resolve(name, fileOf);
            if (target != null
                && !target.equals(path)
                && !packageOf.get(target).equals(packageOf.get(path))) {
              refs.computeIfAbsent(target, t -> new TreeSet<>()).add(name);
            }
          }
          graph.put(path, refs);
        });
    return graph;
  }

  /** The file of the longest prefix of {@code name} that is a known class, or null. */
  private static String resolve(String name, Map<String, String> fileOf) {
    for (String n = name; n.contains("."); n = n.substring(0, n.lastIndexOf('.'))) {
      String file = fileOf.get(n);
      if (file != null) {
        return file;
      }
    }
    return null;
  }

  /** {@code source} with its comments, string literals, text blocks and char literals emptied. */
  static String code(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int n = source.length();
    int i = 0;
    while (i < n) {
      char c = source.charAt(i);
      if (source.startsWith("//", i)) {
        while (i < n && source.charAt(i) != '\n') {
          i++;
        }
      } else if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (source.startsWith("\"\"\"", i)) {
        int j = i + 3;
        while (j < n && !source.startsWith("\"\"\"", j)) {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        i = Math.min(n, j + 3);
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        i = Math.min(n, j + 1);
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /**
   * The strongly connected components of more than one node of the graph given as each node's
   * targets (Tarjan), each sorted, in the order of their first node. A target that is not a key is
   * a node without edges.
   */
  static List<List<String>> circles(Map<String, ? extends Collection<String>> graph) {
    Map<String, Collection<String>> edges = new TreeMap<>();
    graph.forEach((node, targets) -> edges.put(node, new TreeSet<>(targets)));
    Tarjan t = new Tarjan(edges);
    edges.keySet().forEach(t::visit);
    t.components.sort((a, b) -> a.get(0).compareTo(b.get(0)));
    return t.components;
  }

  private static final class Tarjan {
    private final Map<String, Collection<String>> edges;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final List<String> stack = new ArrayList<>();
    private final Set<String> onStack = new HashSet<>();
    private final List<List<String>> components = new ArrayList<>();

    Tarjan(Map<String, Collection<String>> edges) {
      this.edges = edges;
    }

    void visit(String v) {
      if (index.containsKey(v)) {
        return;
      }
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.add(v);
      onStack.add(v);
      for (String w : edges.getOrDefault(v, List.of())) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        List<String> component = new ArrayList<>();
        String w;
        do {
          w = stack.remove(stack.size() - 1);
          onStack.remove(w);
          component.add(w);
        } while (!w.equals(v));
        if (component.size() > 1) {
          component.sort(null);
          components.add(component);
        }
      }
    }
  }

  /** A circle's files and the references among them. */
  private static String describe(List<String> circle, Map<String, Map<String, Set<String>>> graph) {
    StringBuilder s = new StringBuilder(":");
    for (String file : circle) {
      s.append("\n  ").append(file);
      graph
          .get(file)
          .forEach(
              (target, names) -> {
                if (circle.contains(target)) {
                  s.append("\n      -> ").append(target).append(" by ").append(names);
                }
              });
    }
    return s.toString();
  }
}
