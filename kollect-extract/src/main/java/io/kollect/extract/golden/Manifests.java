package io.kollect.extract.golden;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads Kubernetes manifests from files, folders or streams into JSON trees, the way {@code
 * kubectl apply -f} reads them: YAML or JSON, several YAML documents per file, {@code kind: List}
 * (and any {@code *List} kind with {@code items}) flattened into its items, empty documents
 * skipped. A folder contributes its {@code *.yaml}, {@code *.yml} and {@code *.json} files, in
 * name order, recursively.
 *
 * <p><b>Streaming.</b> {@link #forEach} hands over one object at a time, and a list's items are
 * parsed one by one as they arrive, so {@code kubectl get deploy -A -o yaml | kollect extract -i -}
 * holds one item in memory, not the list. kubectl writes {@code items} before {@code kind}, so an
 * {@code items} array at a document's top level is streamed as soon as its first element looks
 * like a Kubernetes object (it has {@code apiVersion} and {@code kind}); a document whose {@code
 * kind} then turns out not to be a list is refused by name rather than half-read. Input that starts
 * with <code>{</code> or <code>[</code> is read by the JSON parser (as kubectl sniffs it), the rest
 * by the YAML parser.
 *
 * <p><b>Size.</b> One YAML document may be up to {@value #MAX_DOCUMENT_CODE_POINTS} code points
 * (SnakeYAML's default, 3 MiB, refused ordinary lists); what bounds memory is the size of one item.
 */
public final class Manifests {

  /** The largest YAML document read (a list counts as one document): 1 Gi code points. */
  public static final int MAX_DOCUMENT_CODE_POINTS = 1 << 30;

  private static final ObjectMapper YAML = yamlMapper();
  private static final ObjectMapper JSON = new ObjectMapper();

  private Manifests() {}

  private static ObjectMapper yamlMapper() {
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit(MAX_DOCUMENT_CODE_POINTS);
    return new ObjectMapper(YAMLFactory.builder().loaderOptions(loader).build());
  }

  /** Reads a file, or every manifest file under a folder. */
  public static List<JsonNode> read(Path fileOrDir) {
    List<JsonNode> out = new ArrayList<>();
    forEach(fileOrDir, out::add);
    return out;
  }

  /**
   * Hands every object of a file, or of every manifest file under a folder, to {@code each}, one
   * at a time.
   */
  public static void forEach(Path fileOrDir, Consumer<JsonNode> each) {
    if (Files.isDirectory(fileOrDir)) {
      for (Path f : manifestFiles(fileOrDir)) {
        forEachInFile(f, each);
      }
      return;
    }
    forEachInFile(fileOrDir, each);
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

  private static void forEachInFile(Path file, Consumer<JsonNode> each) {
    try (InputStream in = Files.newInputStream(file)) {
      forEach(in, file.toString(), each);
    } catch (NoSuchFileException e) {
      throw new ManifestException(file + ": file not found", e);
    } catch (IOException e) {
      throw new ManifestException(file + ": cannot read: " + e.getClass().getSimpleName(), e);
    }
  }

  /** Reads every object from a YAML or JSON stream; {@code sourceName} names it in errors. */
  public static List<JsonNode> read(InputStream in, String sourceName) {
    List<JsonNode> out = new ArrayList<>();
    forEach(in, sourceName, out::add);
    return out;
  }

  /**
   * Hands every object of a YAML or JSON stream to {@code each}, one at a time, list items as they
   * are parsed; {@code sourceName} names the stream in errors.
   */
  public static void forEach(InputStream in, String sourceName, Consumer<JsonNode> each) {
    BufferedInputStream buffered = new BufferedInputStream(in);
    ObjectMapper mapper;
    try {
      mapper = startsLikeJson(buffered) ? JSON : YAML;
    } catch (IOException e) {
      throw new ManifestException(sourceName + ": cannot read: " + e.getClass().getSimpleName(), e);
    }
    JsonFactory factory = mapper.getFactory();
    try (JsonParser parser = factory.createParser(buffered)) {
      int index = 0;
      for (JsonToken t = parser.nextToken(); t != null; t = parser.nextToken()) {
        index++;
        if (t == JsonToken.VALUE_NULL
            || (t == JsonToken.VALUE_STRING && parser.getText().isEmpty())) {
          continue; // an empty YAML document (after a trailing ---, or only comments)
        }
        if (t != JsonToken.START_OBJECT) {
          throw new ManifestException(sourceName + ": document " + index + " is not an object");
        }
        new Document(mapper, parser, sourceName, index, each).read();
      }
    } catch (JsonProcessingException e) {
      throw new ManifestException(sourceName + ": " + syntax(e), e);
    } catch (IOException e) {
      throw new ManifestException(sourceName + ": cannot read: " + e.getClass().getSimpleName(), e);
    }
  }

  /** Whether the first character that is not white space opens a JSON object or array. */
  private static boolean startsLikeJson(BufferedInputStream in) throws IOException {
    in.mark(4096);
    try {
      for (int i = 0; i < 4096; i++) {
        int c = in.read();
        if (c < 0) {
          return false;
        }
        if (c == '\uFEFF' || c == 0xEF || c == 0xBB || c == 0xBF || Character.isWhitespace(c)) {
          continue; // white space or a UTF-8 byte order mark
        }
        return c == '{' || c == '[';
      }
      return false;
    } finally {
      in.reset();
    }
  }

  /**
   * One top-level document, read field by field so that a list's items can be handed over while
   * the rest of the list is still unread.
   */
  private static final class Document {
    private final ObjectMapper mapper;
    private final JsonParser parser;
    private final String source;
    private final int index;
    private final Consumer<JsonNode> each;
    private final ObjectNode fields;
    private int streamedItems = -1;

    Document(ObjectMapper mapper, JsonParser parser, String source, int index,
        Consumer<JsonNode> each) {
      this.mapper = mapper;
      this.parser = parser;
      this.source = source;
      this.index = index;
      this.each = each;
      this.fields = mapper.createObjectNode();
    }

    void read() throws IOException {
      for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals("items") && value == JsonToken.START_ARRAY && streamedItems < 0
            && mayBeList()) {
          readItems();
        } else {
          fields.set(name, mapper.readTree(parser));
        }
      }
      String kind = fields.path("kind").asText("");
      if (streamedItems >= 0 && !isListKind(kind)) {
        throw new ManifestException(source + ": document " + index + " has top-level items, "
            + "read as a list's, but its kind " + (kind.isEmpty() ? "is missing" : kind + " is not a list")
            + "; a list's kind ends with List");
      }
      if (streamedItems < 0 && !fields.isEmpty()) {
        flatten(fields, each);
      }
    }

    /** Before {@code kind} is read, any document may be a list; after, only a *List kind. */
    private boolean mayBeList() {
      JsonNode kind = fields.get("kind");
      return kind == null || isListKind(kind.asText(""));
    }

    /**
     * Hands over each item as it is parsed. The first element decides: an object with apiVersion
     * and kind is a Kubernetes object and the array is a list's; anything else makes the array an
     * ordinary field of the document.
     */
    private void readItems() throws IOException {
      JsonToken t = parser.nextToken();
      if (t == JsonToken.END_ARRAY) {
        fields.set("items", mapper.createArrayNode());
        return;
      }
      JsonNode first = mapper.readTree(parser);
      if (!(first.isObject() && first.path("apiVersion").isTextual()
          && first.path("kind").isTextual()) && fields.get("kind") == null) {
        ArrayNode plain = mapper.createArrayNode().add(first);
        for (t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
          JsonNode element = mapper.readTree(parser);
          plain.add(element);
        }
        fields.set("items", plain);
        return;
      }
      streamedItems = 0;
      item(first);
      for (t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
        item(mapper.readTree(parser));
      }
    }

    private void item(JsonNode item) {
      if (item.isObject()) {
        streamedItems++;
        flatten(item, each);
      }
    }
  }

  private static boolean isListKind(String kind) {
    return kind.endsWith("List");
  }

  private static void flatten(JsonNode doc, Consumer<JsonNode> each) {
    String kind = doc.path("kind").asText("");
    if (isListKind(kind) && doc.path("items").isArray()) {
      for (JsonNode item : doc.get("items")) {
        if (item.isObject()) {
          flatten(item, each);
        }
      }
      return;
    }
    each.accept(doc);
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
