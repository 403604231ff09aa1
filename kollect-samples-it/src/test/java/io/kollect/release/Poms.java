package io.kollect.release;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** Reads the repository's poms as plain XML, so the release tests hold what the build is told. */
final class Poms {

  private Poms() {}

  /** The repository root, whether the tests run from this module (Maven) or from the root. */
  static Path root() {
    Path cwd = Path.of("").toAbsolutePath();
    return Files.isDirectory(cwd.resolve("kollect-bom")) ? cwd : cwd.getParent();
  }

  static Element read(Path pom) {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      return f.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + pom, e);
    }
  }

  /** The direct children of {@code parent} named {@code name}. */
  static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  /** The element at a path of direct children ({@code "build", "plugins"}), if there is one. */
  static Optional<Element> at(Element from, String... path) {
    Element e = from;
    for (String step : path) {
      List<Element> c = children(e, step);
      if (c.isEmpty()) {
        return Optional.empty();
      }
      e = c.get(0);
    }
    return Optional.of(e);
  }

  /** The trimmed text at a path, or empty. */
  static Optional<String> text(Element from, String... path) {
    return at(from, path).map(e -> e.getTextContent().trim());
  }

  /** The configuration of the build plugin with this artifactId. */
  static Element pluginConfiguration(Element pom, String artifactId) {
    return children(at(pom, "build", "plugins").orElseThrow(), "plugin").stream()
        .filter(p -> text(p, "artifactId").orElse("").equals(artifactId))
        .findFirst()
        .flatMap(p -> at(p, "configuration"))
        .orElseThrow(() -> new AssertionError("no configured plugin " + artifactId));
  }
}
