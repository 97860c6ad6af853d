package io.vcorfu.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries, checked over the main and test classes of every module of the build (the
 * benchmarks module is built last, so every other module's classes are compiled by then). A module
 * is named by its package: classes under {@code io.vcorfu.X} belong to module X.
 */
class ModuleBoundaryTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importEveryModule() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<Path> dirs = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(m -> Files.exists(m.resolve("pom.xml"))).toList()) {
        for (String out : List.of("target/classes", "target/test-classes")) {
          Path dir = module.resolve(out);
          if (Files.isDirectory(dir.resolve("io/vcorfu"))) {
            dirs.add(dir);
          }
        }
      }
    }
    classes = new ClassFileImporter().importPaths(dirs);
    assertThat(classes.containPackage("io.vcorfu.client")).isTrue();
    assertThat(classes.containPackage("io.vcorfu.server")).isTrue();
  }

  /** The module a package belongs to: {@code X} for {@code io.vcorfu.X...}. */
  private static String module(String pkg) {
    String[] parts = pkg.split("\\.");
    return parts.length > 2 && parts[0].equals("io") && parts[1].equals("vcorfu") ? parts[2] : pkg;
  }

  /** An internal package of a vcorfu module (libraries' own "internal" packages are theirs). */
  private static boolean isInternal(String pkg) {
    return pkg.startsWith("io.vcorfu.")
        && (pkg.endsWith(".internal") || pkg.contains(".internal."));
  }

  private static final ArchCondition<JavaClass> USE_ONLY_THEIR_OWN_MODULES_INTERNALS =
      new ArchCondition<>("depend on an internal package only of their own module") {
        @Override
        public void check(JavaClass origin, ConditionEvents events) {
          String own = module(origin.getPackageName());
          for (Dependency d : origin.getDirectDependenciesFromSelf()) {
            String target = d.getTargetClass().getBaseComponentType().getPackageName();
            if (isInternal(target) && !module(target).equals(own)) {
              events.add(SimpleConditionEvent.violated(d, d.getDescription()));
            }
          }
        }
      };

  @Test
  void aClassUsesAnInternalPackageOnlyOfItsOwnModule() {
    classes().should(USE_ONLY_THEIR_OWN_MODULES_INTERNALS).check(classes);
  }

  @Test
  void theClientDependsOnNoModuleAboveIt() {
    noClasses()
        .that()
        .resideInAPackage("io.vcorfu.client..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.vcorfu.runtime..",
            "io.vcorfu.collections..",
            "io.vcorfu.server..",
            "io.vcorfu.benchmarks..")
        .check(classes);
  }

  @Test
  void theRuntimeDoesNotDependOnTheServer() {
    noClasses()
        .that()
        .resideInAPackage("io.vcorfu.runtime..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.vcorfu.server..", "io.vcorfu.benchmarks..")
        .check(classes);
  }
}
