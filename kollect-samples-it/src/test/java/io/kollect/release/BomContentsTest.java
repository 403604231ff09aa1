package io.kollect.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * The BOM is what embedders import to pin one Kollect version: it must name every library module
 * (a jar module that publishes javadoc), at the reactor's version, and pin nothing else.
 */
class BomContentsTest {

  private final Path root = Poms.root();
  private final Element parent = Poms.read(root.resolve("pom.xml"));
  private final Element bom = Poms.read(root.resolve("kollect-bom/pom.xml"));

  @Test
  void bomListsExactlyTheLibraryModulesAtTheProjectVersion() {
    Map<String, String> managed = new TreeMap<>();
    for (Element d : Poms.children(
        Poms.at(bom, "dependencyManagement", "dependencies").orElseThrow(), "dependency")) {
      assertThat(Poms.text(d, "groupId")).contains("io.kollect");
      managed.put(Poms.text(d, "artifactId").orElseThrow(), Poms.text(d, "version").orElseThrow());
    }

    assertThat(managed.keySet()).containsExactlyInAnyOrderElementsOf(libraryModules());
    assertThat(managed.values()).allMatch("${project.version}"::equals);
  }

  @Test
  void bomHasTheReactorsVersionAndNoParent() {
    assertThat(Poms.text(bom, "version")).isEqualTo(Poms.text(parent, "version"));
    // a parent would make importers inherit the build's Jackson, fabric8 and Kafka pins
    assertThat(Poms.at(bom, "parent")).isEmpty();
  }

  @Test
  void releaseScriptCollectsEveryLibraryModule() throws IOException {
    String script = Files.readString(root.resolve("scripts/release.sh"));
    Matcher m = Pattern.compile("(?m)^libraries=\\(([^)]*)\\)").matcher(script);
    assertThat(m.find()).as("a libraries=(...) line in scripts/release.sh").isTrue();

    assertThat(List.of(m.group(1).trim().split("\\s+")))
        .containsExactlyInAnyOrderElementsOf(libraryModules());
  }

  /** Modules packaged as jars that do not opt out of javadoc: what embedders depend on. */
  private Set<String> libraryModules() {
    Set<String> out = new TreeSet<>();
    for (Element module : Poms.children(Poms.at(parent, "modules").orElseThrow(), "module")) {
      String name = module.getTextContent().trim();
      Element pom = Poms.read(root.resolve(name).resolve("pom.xml"));
      boolean jar = Poms.text(pom, "packaging").orElse("jar").equals("jar");
      boolean noJavadoc = Poms.text(pom, "properties", "maven.javadoc.skip").orElse("false")
          .equals("true");
      if (jar && !noJavadoc) {
        out.add(Poms.text(pom, "artifactId").orElseThrow());
      }
    }
    assertThat(out).as("library modules").contains("kollect-core", "kollect-extract");
    return out;
  }
}
