package io.kollect.extract.golden;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.Record;
import io.kollect.extract.RecordContext;
import io.kollect.extract.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Runs one compiled profile over golden cases (see the package documentation for the layout) and
 * compares, or rewrites, the expected records. Immutable: {@link #ignoreFields} and {@link
 * #context} return new suites.
 */
public final class GoldenSuite {

  /** The file holding a case's expected records. */
  public static final String EXPECTED_FILE = "expected.jsonl";
  /** The folder holding a case's input manifests. */
  public static final String INPUT_DIR = "input";

  private static final ObjectMapper PRETTY =
      Records.mapper().copy().enable(SerializationFeature.INDENT_OUTPUT);

  private final CompiledProfile profile;
  private final Set<String> ignored;
  private final RecordContext context;
  private final boolean allowEmpty;

  private GoldenSuite(CompiledProfile profile, Set<String> ignored, RecordContext context,
      boolean allowEmpty) {
    this.profile = profile;
    this.ignored = Set.copyOf(ignored);
    this.context = context;
    this.allowEmpty = allowEmpty;
  }

  /**
   * A suite for a profile file (a whole {@code KollectProfile} or a bare spec).
   *
   * @throws io.kollect.extract.ProfileValidationException when the profile is invalid
   */
  public static GoldenSuite of(Path profileFile) {
    return of(ProfileCompiler.compile(profileFile));
  }

  /** A suite for an already compiled profile. */
  public static GoldenSuite of(CompiledProfile profile) {
    return new GoldenSuite(profile, Set.of("observedAt"), offlineContext(), false);
  }

  /**
   * The context of offline runs: cluster {@code offline}, target {@code offline}, observed at the
   * epoch, so that records from files are reproducible.
   */
  public static RecordContext offlineContext() {
    return new RecordContext("offline", "offline", Instant.EPOCH);
  }

  /**
   * Also ignore these record keys when comparing: top-level names ({@code uid}, {@code
   * resourceVersion}, {@code cluster}, {@code contentHash}) or dotted paths into the record
   * ({@code fields.lastDeployed}, {@code annotations.deployment.kubernetes.io/revision} — the part
   * after {@code fields.}/{@code labels.}/{@code annotations.} is taken as one key).
   * {@code observedAt} is always ignored.
   */
  public GoldenSuite ignoreFields(String... names) {
    Set<String> s = new LinkedHashSet<>(ignored);
    s.addAll(Arrays.asList(names));
    return new GoldenSuite(profile, s, context, allowEmpty);
  }

  /** Produce records with this context instead of {@link #offlineContext()}. */
  public GoldenSuite context(RecordContext ctx) {
    return new GoldenSuite(profile, ignored, ctx, allowEmpty);
  }

  /**
   * Let {@link #update} write a case whose input yields no record. Without it an update refuses
   * such a case, since a profile that matches nothing (a wrong group, say) would otherwise turn
   * every golden file into an empty one that passes ever after.
   */
  public GoldenSuite allowEmpty() {
    return new GoldenSuite(profile, ignored, context, true);
  }

  /** The profile under test. */
  public CompiledProfile profile() {
    return profile;
  }

  /** The records the profile produces from these objects, sorted by key. */
  public List<Record> extract(List<JsonNode> objects) {
    List<Record> out = new ArrayList<>();
    for (JsonNode o : objects) {
      profile.extract(o, context).ifPresent(out::add);
    }
    out.sort(Comparator.comparing(Record::key));
    return out;
  }

  private static List<Path> inputFiles(Path input) {
    return Files.isDirectory(input) ? Manifests.manifestFiles(input) : List.of(input);
  }

  /** The case folders under {@code casesDir} (itself, when it contains {@code input/}). */
  public static List<Path> caseDirectories(Path casesDir) {
    if (!Files.isDirectory(casesDir)) {
      throw new ManifestException(casesDir + ": not a folder");
    }
    if (Files.isDirectory(casesDir.resolve(INPUT_DIR))) {
      return List.of(casesDir);
    }
    try (Stream<Path> s = Files.list(casesDir)) {
      List<Path> cases = s.filter(d -> Files.isDirectory(d.resolve(INPUT_DIR))).sorted().toList();
      if (cases.isEmpty()) {
        throw new ManifestException(casesDir + ": no cases (a case is a folder with an input/ folder)");
      }
      return cases;
    } catch (IOException e) {
      throw new ManifestException(casesDir + ": cannot list: " + e.getClass().getSimpleName(), e);
    }
  }

  /**
   * Runs every case and compares.
   *
   * @throws ManifestException for unreadable inputs or a malformed {@code expected.jsonl}
   * @throws io.kollect.extract.ExtractionException for an input object that cannot be extracted
   */
  public GoldenReport run(Path casesDir) {
    List<GoldenReport.CaseResult> results = new ArrayList<>();
    for (Path dir : caseDirectories(casesDir)) {
      results.add(runCase(dir, extract(Manifests.read(dir.resolve(INPUT_DIR)))));
    }
    return new GoldenReport(results);
  }

  /**
   * Rewrites every case's {@code expected.jsonl} with the records the profile produces now (only
   * files whose content changes are written).
   *
   * @return the comparison as it was before the update
   */
  public GoldenReport update(Path casesDir) {
    Map<Path, List<Record>> produced = new LinkedHashMap<>();
    for (Path dir : caseDirectories(casesDir)) {
      InputSummary read = new InputSummary(profile);
      List<Record> actual = new ArrayList<>();
      for (Path file : inputFiles(dir.resolve(INPUT_DIR))) {
        read.file();
        Manifests.forEach(file, o -> {
          read.object(o);
          profile.extract(o, context).ifPresent(actual::add);
        });
      }
      if (actual.isEmpty() && !allowEmpty) {
        // checked for every case before any file is written: a refused update changes nothing
        throw new ManifestException("case " + dir.getFileName() + ": no record to write ("
            + read.line() + "); not writing an empty " + EXPECTED_FILE
            + ": fix the profile's resources, or allow empty cases (--allow-empty)");
      }
      actual.sort(Comparator.comparing(Record::key));
      produced.put(dir, actual);
    }
    List<GoldenReport.CaseResult> results = new ArrayList<>();
    for (Map.Entry<Path, List<Record>> c : produced.entrySet()) {
      Path dir = c.getKey();
      List<Record> actual = c.getValue();
      Path expectedFile = dir.resolve(EXPECTED_FILE);
      GoldenReport.CaseResult before = runCase(dir, actual);
      results.add(before);
      StringBuilder sb = new StringBuilder();
      for (Record r : actual) {
        sb.append(Records.toJsonLine(r)).append('\n');
      }
      String text = sb.toString();
      try {
        if (!Files.exists(expectedFile) || !Files.readString(expectedFile).equals(text)) {
          Files.writeString(expectedFile, text, StandardCharsets.UTF_8);
        }
      } catch (IOException e) {
        throw new ManifestException(expectedFile + ": cannot write: " + e.getClass().getSimpleName(), e);
      }
    }
    return new GoldenReport(results);
  }

  private GoldenReport.CaseResult runCase(Path dir, List<Record> actualRecords) {
    String name = dir.getFileName() == null ? dir.toString() : dir.getFileName().toString();
    Path expectedFile = dir.resolve(EXPECTED_FILE);
    Map<String, ObjectNode> actual = new TreeMap<>();
    for (Record r : actualRecords) {
      actual.put(r.key(), Records.toTree(r));
    }
    StringBuilder diff = new StringBuilder();
    Map<String, ObjectNode> expected = new TreeMap<>();
    if (!Files.exists(expectedFile)) {
      diff.append("case ").append(name).append(": ").append(expectedFile)
          .append(" does not exist (create it with --update / GoldenSuite.update)\n");
    } else {
      expected = readExpected(expectedFile);
    }
    Set<String> keys = new TreeSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    StringBuilder body = new StringBuilder();
    int missing = 0;
    int unexpected = 0;
    int changed = 0;
    for (String key : keys) {
      ObjectNode e = expected.get(key);
      ObjectNode a = actual.get(key);
      if (e != null && a == null) {
        missing++;
        body.append("--- expected ").append(key).append("\n+++ actual (no record)\n");
        pretty(strip(e)).forEach(l -> body.append('-').append(l).append('\n'));
      } else if (e == null) {
        unexpected++;
        body.append("--- expected (no record)\n+++ actual ").append(key).append('\n');
        pretty(strip(a)).forEach(l -> body.append('+').append(l).append('\n'));
      } else {
        ObjectNode se = strip(e);
        ObjectNode sa = strip(a);
        if (!se.equals(sa)) {
          changed++;
          List<String> el = pretty(se);
          List<String> al = pretty(sa);
          List<String> unified = UnifiedDiffUtils.generateUnifiedDiff(
              "expected " + key, "actual " + key, el, DiffUtils.diff(el, al), 3);
          unified.forEach(l -> body.append(l).append('\n'));
        }
      }
    }
    int differing = missing + unexpected + changed;
    if (!body.isEmpty()) {
      diff.append("case ").append(name).append(": ").append(missing).append(" missing, ")
          .append(unexpected).append(" unexpected, ").append(changed).append(" changed\n").append(body);
    }
    return new GoldenReport.CaseResult(name, dir, expected.size(), actual.size(),
        keys.size() - differing, differing, diff.toString());
  }

  private static Map<String, ObjectNode> readExpected(Path file) {
    Map<String, ObjectNode> out = new TreeMap<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ManifestException(file + ": cannot read: " + e.getClass().getSimpleName(), e);
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      JsonNode n;
      try {
        n = Records.mapper().readTree(line);
      } catch (JsonProcessingException e) {
        throw new ManifestException(file + ": line " + (i + 1) + ": " + Manifests.syntax(e), e);
      }
      if (!n.isObject() || !n.path("resource").isObject() || !n.path("name").isTextual()) {
        throw new ManifestException(file + ": line " + (i + 1) + ": not a record (needs resource and name)");
      }
      out.put(key(n), (ObjectNode) n);
    }
    return out;
  }

  private static String key(JsonNode n) {
    JsonNode r = n.path("resource");
    String ns = n.path("namespace").isTextual() ? n.path("namespace").textValue() : "";
    return r.path("group").asText("") + "/" + r.path("kind").asText("") + "/" + ns + "/" + n.path("name").asText();
  }

  /** A copy without ignored keys. */
  private ObjectNode strip(ObjectNode record) {
    ObjectNode c = record.deepCopy();
    for (String f : ignored) {
      int dot = f.indexOf('.');
      if (dot < 0) {
        c.remove(f);
      } else {
        JsonNode parent = c.get(f.substring(0, dot));
        if (parent instanceof ObjectNode p) {
          p.remove(f.substring(dot + 1));
        }
      }
    }
    return c;
  }

  /** Pretty JSON with nested keys sorted, so that key order never shows up as a difference. */
  private static List<String> pretty(ObjectNode record) {
    try {
      return List.of(PRETTY.writeValueAsString(sortNested(record, true)).split("\n"));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final List<String> RECORD_ORDER = List.of(
      "op", "cluster", "target", "profile", "resource", "namespace", "name", "uid", "resourceVersion",
      "observedAt", "contentHash", "fields", "labels", "annotations");

  private static int recordOrder(String key) {
    int i = RECORD_ORDER.indexOf(key);
    return i < 0 ? RECORD_ORDER.size() : i;
  }

  private static JsonNode sortNested(JsonNode n, boolean top) {
    if (n.isObject()) {
      ObjectNode o = Records.mapper().createObjectNode();
      List<String> names = new ArrayList<>();
      n.fieldNames().forEachRemaining(names::add);
      names.sort(top ? Comparator.comparingInt(GoldenSuite::recordOrder).thenComparing(k -> k) : null);
      for (String k : names) {
        o.set(k, sortNested(n.get(k), false));
      }
      return o;
    }
    if (n.isArray()) {
      var a = Records.mapper().createArrayNode();
      for (Iterator<JsonNode> it = n.elements(); it.hasNext(); ) {
        a.add(sortNested(it.next(), false));
      }
      return a;
    }
    return n;
  }
}
