package io.kollect.extract.golden;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Reads Kubernetes manifests from files, folders or streams into JSON trees, the way {@code
 * kubectl apply -f} reads them: YAML or JSON, several YAML documents per file, {@code kind: List}
 * (and any {@code *List} kind with {@code items}) flattened into its items, empty documents
 * skipped. A folder contributes its {@code *.yaml}, {@code *.yml} and {@code *.json} files, in
 * name order, recursively.
 */
public final class Manifests {

  private static final ObjectMapper YAML = new YAMLMapper();

  private Manifests() {}

  /** Reads a file, or every manifest file under a folder. */
  public static List<JsonNode> read(Path fileOrDir) {
    if (Files.isDirectory(fileOrDir)) {
      List<JsonNode> out = new ArrayList<>();
      for (Path f : manifestFiles(fileOrDir)) {
        out.addAll(readFile(f));
      }
      return out;
    }
    return readFile(fileOrDir);
  }

  /** The manifest files under a folder, sorted by path. */
  public static List<Path> manifestFiles(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).filter(Manifests::isManifest).sorted().toList();
    } catch (IOException e) {
      throw new ManifestException(dir + ": cannot list: " + e.getClass().getSimpleName(), e);
    }
  }

  private static boolean isManifest(Path p) {
    String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
    return n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json");
  }

  private static List<JsonNode> readFile(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, file.toString());
    } catch (NoSuchFileException e) {
      throw new ManifestException(file + ": file not found", e);
    } catch (IOException e) {
      throw new ManifestException(file + ": cannot read: " + e.getClass().getSimpleName(), e);
    }
  }

  /** Reads every object from a YAML or JSON stream; {@code sourceName} names it in errors. */
  public static List<JsonNode> read(InputStream in, String sourceName) {
    List<JsonNode> out = new ArrayList<>();
    try (JsonParser parser = YAML.getFactory().createParser(in);
        MappingIterator<JsonNode> docs = YAML.readValues(parser, JsonNode.class)) {
      int index = 0;
      while (docs.hasNextValue()) {
        JsonNode doc = docs.nextValue();
        index++;
        if (doc == null || doc.isNull() || doc.isMissingNode() || (doc.isObject() && doc.isEmpty())) {
          continue;
        }
        if (!doc.isObject()) {
          throw new ManifestException(sourceName + ": document " + index + " is not an object");
        }
        flatten(doc, out);
      }
    } catch (JsonProcessingException e) {
      throw new ManifestException(sourceName + ": " + syntax(e), e);
    } catch (IOException e) {
      throw new ManifestException(sourceName + ": cannot read: " + e.getClass().getSimpleName(), e);
    } catch (RuntimeException e) {
      if (e instanceof ManifestException) {
        throw e;
      }
      // MappingIterator wraps parse errors in RuntimeJsonMappingException
      if (e.getCause() instanceof JsonProcessingException jpe) {
        throw new ManifestException(sourceName + ": " + syntax(jpe), e);
      }
      throw e;
    }
    return out;
  }

  private static void flatten(JsonNode doc, List<JsonNode> out) {
    String kind = doc.path("kind").asText("");
    if (kind.endsWith("List") && doc.path("items").isArray()) {
      for (JsonNode item : doc.get("items")) {
        if (item.isObject()) {
          flatten(item, out);
        }
      }
      return;
    }
    out.add(doc);
  }

  static String syntax(JsonProcessingException e) {
    JsonLocation loc = e.getLocation();
    String msg = e.getOriginalMessage() == null ? "syntax error"
        : e.getOriginalMessage().lines().findFirst().orElse("syntax error");
    // Parsers quote the offending text ("Unrecognized token 'hunter2'"); never echo it.
    msg = msg.replaceAll("'[^']{2,}'", "'…'").replaceAll("\"[^\"]{2,}\"", "\"…\"");
    String where = loc != null && loc.getLineNr() > 0
        ? " at line " + loc.getLineNr() + ", column " + loc.getColumnNr() : "";
    return "invalid YAML/JSON" + where + ": " + msg;
  }
}
