package io.kollect.extract;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads profiles from YAML or JSON: either a whole {@code KollectProfile} object ({@code
 * apiVersion/kind/metadata/spec}) or just its spec ({@code resources: [...]}).
 *
 * <p>Reading is strict: unknown keys, wrong value types and syntax errors are all reported in one
 * {@link ProfileValidationException}, each located ({@code resources[0].fields[1] "image": unknown
 * key "paht"}, {@code line 7, column 5: ...}). Messages never quote values from the file.
 * Semantic checks (paths, reducers, duplicates) are {@link ProfileCompiler}'s job.
 */
public final class ProfileLoader {

  /**
   * A profile spec with the name it was declared under.
   *
   * @param name {@code metadata.name}, or the source name without extension for a bare spec
   * @param spec the spec
   */
  public record NamedSpec(String name, ProfileSpec spec) {}

  private static final Set<String> WRAPPER_KEYS = Set.of("apiVersion", "kind", "metadata", "spec", "status");
  private static final ObjectMapper YAML =
      YAMLMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .build();

  private ProfileLoader() {}

  /** Loads a profile file. */
  public static ProfileSpec load(Path file) {
    return loadNamed(file).spec();
  }

  /** Loads a profile file together with its name. */
  public static NamedSpec loadNamed(Path file) {
    return parseNamed(read(file), file.toString());
  }

  static String read(Path file) {
    String source = file.toString();
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw single(source, "file not found");
    } catch (IOException e) {
      throw single(source, "cannot read: " + e.getClass().getSimpleName());
    }
  }

  /**
   * A parsed spec plus the problems that did not stop parsing (unknown keys, a wrong wrapper
   * kind), so that the compiler can add its own and report everything at once.
   */
  record Parsed(NamedSpec named, List<ProfileValidationException.Problem> problems) {}

  /** Parses a profile from YAML or JSON text; {@code sourceName} names it in messages. */
  public static ProfileSpec parse(String yamlOrJson, String sourceName) {
    return parseNamed(yamlOrJson, sourceName).spec();
  }

  /** Parses a profile together with its name. */
  public static NamedSpec parseNamed(String yamlOrJson, String sourceName) {
    Parsed parsed = parseCollecting(yamlOrJson, sourceName);
    if (!parsed.problems().isEmpty()) {
      throw new ProfileValidationException(sourceName, parsed.problems());
    }
    return parsed.named();
  }

  /** Throws only when no spec could be read at all; other problems are returned. */
  static Parsed parseCollecting(String yamlOrJson, String sourceName) {
    JsonNode root;
    try {
      root = YAML.readTree(yamlOrJson);
    } catch (JsonProcessingException e) {
      throw single(sourceName, syntaxMessage(e));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw single(sourceName, "the file is empty");
    }
    if (!root.isObject()) {
      throw single(sourceName, "expected a KollectProfile object or a profile spec (resources: [...])");
    }
    List<ProfileValidationException.Problem> problems = new ArrayList<>();
    String name = defaultName(sourceName);
    JsonNode spec = root;
    boolean wrapped = root.has("spec") || root.has("kind") || root.has("apiVersion");
    if (wrapped) {
      root.fieldNames().forEachRemaining(k -> {
        if (!WRAPPER_KEYS.contains(k)) {
          problems.add(new ProfileValidationException.Problem("", "unknown key \"" + k + "\""));
        }
      });
      String kind = root.path("kind").asText("");
      if (!kind.equals("KollectProfile")) {
        problems.add(new ProfileValidationException.Problem(
            "kind", kind.isEmpty() ? "is required (KollectProfile)" : "must be KollectProfile"));
      }
      String declared = root.path("metadata").path("name").asText("");
      if (!declared.isEmpty()) {
        name = declared;
      }
      spec = root.path("spec");
      if (!spec.isObject()) {
        problems.add(new ProfileValidationException.Problem("spec", "is required and must be an object"));
        throw new ProfileValidationException(sourceName, problems);
      }
    }
    UnknownKeys unknown = new UnknownKeys(spec);
    ProfileSpec parsed = null;
    try {
      parsed = YAML.reader().withHandler(unknown).treeToValue(spec, ProfileSpec.class);
    } catch (MismatchedInputException e) {
      problems.addAll(unknown.problems);
      problems.add(new ProfileValidationException.Problem(
          locateRefs(spec, e.getPath()), "expected " + describe(e.getTargetType())));
      throw new ProfileValidationException(sourceName, problems);
    } catch (JsonMappingException e) {
      problems.addAll(unknown.problems);
      problems.add(new ProfileValidationException.Problem(locateRefs(spec, e.getPath()), "invalid value"));
      throw new ProfileValidationException(sourceName, problems);
    } catch (IOException e) {
      throw single(sourceName, "cannot read the profile");
    }
    problems.addAll(unknown.problems);
    return new Parsed(new NamedSpec(name, parsed), problems);
  }

  private static String defaultName(String sourceName) {
    String n = Path.of(sourceName).getFileName() == null ? sourceName : Path.of(sourceName).getFileName().toString();
    int dot = n.lastIndexOf('.');
    return dot > 0 ? n.substring(0, dot) : n;
  }

  private static ProfileValidationException single(String source, String message) {
    return new ProfileValidationException(source, List.of(new ProfileValidationException.Problem("", message)));
  }

  /**
   * SnakeYAML's words for a backslash that YAML does not know in a double-quoted string, e.g.
   * {@code "{.metadata.labels.app\.kubernetes\.io/name}"}: the character and its code point.
   */
  private static final Pattern UNKNOWN_ESCAPE =
      Pattern.compile("found unknown escape character (\\S)\\(\\d+\\)");

  /** A syntax error's position and first line only: later lines echo the document. */
  static String syntaxMessage(JsonProcessingException e) {
    JsonLocation loc = e.getLocation();
    String full = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    Matcher escape = UNKNOWN_ESCAPE.matcher(full);
    if (escape.find()) {
      // The first line ("while scanning a double-quoted scalar") hides the cause, and paths with
      // escaped dots are exactly what profiles are full of.
      String c = escape.group(1);
      return "invalid YAML" + at(loc) + ": unknown escape \\" + c + " in a double-quoted string; "
          + "write the value in single quotes ('{.metadata.labels.app\\.kubernetes\\.io/name}') "
          + "or double the backslash (\"\\\\" + c + "\")";
    }
    String msg = full.isEmpty() ? "syntax error" : full.lines().findFirst().orElse("syntax error");
    // Jackson quotes the offending token ("Unrecognized token 'hunter2'"); never echo it.
    msg = msg.replaceAll("'[^']{2,}'", "'…'").replaceAll("\"[^\"]{2,}\"", "\"…\"");
    return "invalid YAML/JSON" + at(loc) + ": " + msg;
  }

  private static String at(JsonLocation loc) {
    return loc != null && loc.getLineNr() > 0
        ? " at line " + loc.getLineNr() + ", column " + loc.getColumnNr() : "";
  }

  private static String describe(Class<?> type) {
    if (type == null) {
      return "a different type";
    }
    if (Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (Map.class.isAssignableFrom(type) || type.isRecord()) {
      return "an object";
    }
    return "a " + type.getSimpleName();
  }

  /** "resources[0].fields[2] "ready"" from a path of keys and indexes inside the spec. */
  private static String locateRefs(JsonNode spec, List<JsonMappingException.Reference> refs) {
    List<Object> parts = new ArrayList<>();
    for (JsonMappingException.Reference r : refs) {
      parts.add(r.getFieldName() != null ? r.getFieldName() : (Object) r.getIndex());
    }
    return locate(spec, parts);
  }

  static String locate(JsonNode spec, List<Object> parts) {
    StringBuilder sb = new StringBuilder();
    JsonNode at = spec;
    String fieldName = null;
    for (Object p : parts) {
      if (p instanceof Integer i) {
        sb.append('[').append(i).append(']');
        at = at == null ? null : at.get(i);
        fieldName = null;
        if (sb.toString().matches(".*\\.fields\\[\\d+]") && at != null && at.path("name").isTextual()) {
          fieldName = at.path("name").textValue();
        }
      } else {
        if (fieldName != null) {
          sb.append(" \"").append(fieldName).append('"');
          fieldName = null;
        }
        if (!sb.isEmpty()) {
          sb.append('.');
        }
        sb.append(p);
        at = at == null ? null : at.get((String) p);
      }
    }
    if (fieldName != null) {
      sb.append(" \"").append(fieldName).append('"');
    }
    return sb.toString();
  }

  /** Collects every unknown key instead of failing on the first. */
  private static final class UnknownKeys extends DeserializationProblemHandler {
    private final JsonNode spec;
    final List<ProfileValidationException.Problem> problems = new ArrayList<>();

    UnknownKeys(JsonNode spec) {
      this.spec = spec;
    }

    @Override
    public boolean handleUnknownProperty(
        DeserializationContext ctxt, JsonParser p, JsonDeserializer<?> deserializer,
        Object beanOrClass, String propertyName) throws IOException {
      List<Object> parts = new ArrayList<>();
      JsonStreamContext c = p.getParsingContext();
      // The current context is the object holding the unknown key; walk up to the root.
      for (JsonStreamContext x = c.getParent(); x != null && !x.inRoot(); x = x.getParent()) {
        parts.add(0, x.inArray() ? (Object) x.getCurrentIndex() : x.getCurrentName());
      }
      problems.add(new ProfileValidationException.Problem(
          locate(spec, parts), "unknown key \"" + propertyName + "\""));
      p.skipChildren();
      return true;
    }
  }
}
