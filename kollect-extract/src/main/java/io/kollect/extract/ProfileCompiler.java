package io.kollect.extract;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Validates a {@link ProfileSpec} and compiles every path once. All problems are reported together
 * in one {@link ProfileValidationException}, each located as {@code resources[0].fields[2]
 * "ready"} with the column inside the path where that applies.
 */
public final class ProfileCompiler {

  private ProfileCompiler() {}

  /**
   * Compiles a profile.
   *
   * @param profileName the name written into every record's {@code profile}
   * @throws ProfileValidationException listing every problem found
   */
  public static CompiledProfile compile(String profileName, ProfileSpec spec) {
    return compile(profileName, spec, ExtractOptions.none());
  }

  /**
   * Compiles a profile with host-given options (the Secret digest key).
   *
   * @param profileName the name written into every record's {@code profile}
   * @param options see {@link ExtractOptions}; {@link ExtractOptions#none()} for no digest key
   * @throws ProfileValidationException listing every problem found
   */
  public static CompiledProfile compile(String profileName, ProfileSpec spec, ExtractOptions options) {
    if (options == null) {
      throw new IllegalArgumentException("options must not be null (use ExtractOptions.none())");
    }
    List<ProfileValidationException.Problem> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<CompiledRule> rules = new ArrayList<>();
    if (spec == null || spec.resources().isEmpty()) {
      problems.add(new ProfileValidationException.Problem("resources", "at least one resource is required"));
    } else {
      Map<GroupVersionKind, Integer> seen = new HashMap<>();
      for (int i = 0; i < spec.resources().size(); i++) {
        CompiledRule r = compileRule(i, spec.resources().get(i), seen, problems, options);
        ResourceRule rule = spec.resources().get(i);
        if (rule != null && rule.includeSecretData()) {
          warnings.add("resources[" + i + "].includeSecretData is ignored: " + INCLUDE_SECRET_DATA_IGNORED);
        }
        if (r != null) {
          rules.add(r);
          warnScrubbedAncestors(i, r, warnings);
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new ProfileValidationException(profileName, problems);
    }
    return new CompiledProfile(profileName, rules, warnings);
  }

  static final String INCLUDE_SECRET_DATA_IGNORED =
      "Secret values are never exported; paths into data/stringData see per key its length, "
          + "an HMAC-SHA256 digest (when a digest key is configured) and, for PEM certificates, "
          + "subject, issuer, SANs, notBefore and notAfter";

  /**
   * Loads a profile file ({@link ProfileLoader#loadNamed}) and compiles it under its {@code
   * metadata.name}, or the file name without extension when the file holds only a spec. Reading
   * and compiling problems (unknown keys and bad paths, say) are reported together.
   *
   * @throws ProfileValidationException naming the file, listing every problem found
   */
  public static CompiledProfile compile(Path profileFile) {
    return compile(profileFile, ExtractOptions.none());
  }

  /**
   * Like {@link #compile(Path)}, with host-given options (the Secret digest key of {@code kollect
   * extract --digest-key-file}).
   */
  public static CompiledProfile compile(Path profileFile, ExtractOptions options) {
    String source = profileFile.toString();
    ProfileLoader.Parsed parsed = ProfileLoader.parseCollecting(ProfileLoader.read(profileFile), source);
    List<ProfileValidationException.Problem> problems = new ArrayList<>(parsed.problems());
    CompiledProfile compiled = null;
    try {
      compiled = compile(parsed.named().name(), parsed.named().spec(), options);
    } catch (ProfileValidationException e) {
      problems.addAll(e.problems());
    }
    if (!problems.isEmpty()) {
      // every problem at once, under the file's name: that is what the user has to open
      throw new ProfileValidationException(source, problems);
    }
    return compiled;
  }

  private static CompiledRule compileRule(
      int index,
      ResourceRule rule,
      Map<GroupVersionKind, Integer> seen,
      List<ProfileValidationException.Problem> problems,
      ExtractOptions options) {
    String loc = "resources[" + index + "]";
    int before = problems.size();
    if (rule == null) {
      problems.add(new ProfileValidationException.Problem(loc, "must be an object"));
      return null;
    }
    if (blank(rule.version())) {
      problems.add(new ProfileValidationException.Problem(loc, "version is required"));
    }
    if (blank(rule.kind())) {
      problems.add(new ProfileValidationException.Problem(loc, "kind is required"));
    }
    boolean coreSecret = rule.group().isEmpty() && "Secret".equals(rule.kind());
    boolean coreConfigMap = rule.group().isEmpty() && "ConfigMap".equals(rule.kind());
    if (problems.size() == before) {
      Integer other = seen.putIfAbsent(rule.gvk(), index);
      if (other != null) {
        problems.add(new ProfileValidationException.Problem(
            loc, "duplicate resource " + rule.gvk() + " (also resources[" + other + "])"));
      }
    }
    if (rule.helmRelease() && !coreSecret && !coreConfigMap) {
      problems.add(new ProfileValidationException.Problem(
          loc, "helmRelease applies only to v1 Secret and v1 ConfigMap (Helm's storage drivers)"));
    }
    checkGlobs(loc + ".labels", rule.labels(), problems);
    checkGlobs(loc + ".annotations", rule.annotations(), problems);
    checkGlobs(loc + ".scrubKeys", rule.scrubKeys(), problems);

    List<CompiledField> fields = new ArrayList<>();
    Map<String, Integer> names = new HashMap<>();
    for (int j = 0; j < rule.fields().size(); j++) {
      FieldRule f = rule.fields().get(j);
      String floc = loc + ".fields[" + j + "]";
      if (f == null) {
        problems.add(new ProfileValidationException.Problem(floc, "must be an object"));
        continue;
      }
      if (blank(f.name())) {
        problems.add(new ProfileValidationException.Problem(floc, "name is required"));
      } else {
        floc = floc + " \"" + f.name() + "\"";
        Integer other = names.putIfAbsent(f.name(), j);
        if (other != null) {
          problems.add(new ProfileValidationException.Problem(
              floc, "duplicate field name (also fields[" + other + "])"));
        }
      }
      CompiledField cf = compileField(floc, f, rule, problems);
      if (cf != null) {
        fields.add(cf);
      }
    }
    return problems.size() == before ? new CompiledRule(rule, fields, options) : null;
  }

  private static CompiledField compileField(
      String floc, FieldRule f, ResourceRule rule,
      List<ProfileValidationException.Problem> problems) {
    int before = problems.size();
    Reducer reducer = null;
    if (f.reduce() != null) {
      Optional<Reducer> r = Reducer.named(f.reduce());
      if (r.isEmpty()) {
        problems.add(new ProfileValidationException.Problem(
            floc, "unknown reducer \"" + abbreviate(f.reduce()) + "\" (known: " + Reducer.NAMES + ")"));
      } else {
        reducer = r.get();
      }
      if (f.list() != null) {
        problems.add(new ProfileValidationException.Problem(floc, "reduce and list cannot be combined"));
      }
    }
    if (f.path() == null || f.path().isBlank()) {
      problems.add(new ProfileValidationException.Problem(floc, "path is empty"));
      return null;
    }
    KubectlPath t;
    try {
      t = KubectlPath.parse(f.path());
    } catch (PathSyntaxException e) {
      problems.add(new ProfileValidationException.Problem(floc, e.getMessage()));
      return null;
    }
    List<String> prefix = t.staticPrefix();
    if (!rule.helmRelease() && !prefix.isEmpty() && prefix.get(0).equals("release")
        && rule.group().isEmpty() && ("Secret".equals(rule.kind()) || "ConfigMap".equals(rule.kind()))) {
      problems.add(new ProfileValidationException.Problem(
          floc, "paths under release need helmRelease: true on the resource"));
    }
    return problems.size() == before
        ? new CompiledField(f.name(), f.path(), t, reducer, f.list(), f.defaultValue())
        : null;
  }

  /**
   * A field whose path runs through a key the scrubber masks (a sensitive name or a scrubKeys
   * match) can never have a value: the masked key's whole subtree is one mask before any path
   * sees it. Without a word here the field silently never appears.
   */
  private static void warnScrubbedAncestors(int index, CompiledRule rule, List<String> warnings) {
    for (CompiledField f : rule.fields) {
      List<String> prefix = f.path.staticPrefix();
      // the key a path ends on is masked, not lost; only the keys above it hide the value
      int ancestors = prefix.size() == f.path.steps().size() ? prefix.size() - 1 : prefix.size();
      for (int k = 0; k < ancestors; k++) {
        if (rule.scrubber.isSensitiveKey(prefix.get(k))) {
          warnings.add("resources[" + index + "].fields \"" + f.name + "\": path "
              + f.path.source() + " can never have a value: its ancestor key \"" + prefix.get(k)
              + "\" is scrubbed, so everything below it is masked");
          break;
        }
      }
    }
  }

  private static void checkGlobs(String loc, List<String> globs, List<ProfileValidationException.Problem> problems) {
    for (int i = 0; i < globs.size(); i++) {
      if (blank(globs.get(i))) {
        problems.add(new ProfileValidationException.Problem(loc + "[" + i + "]", "must not be empty"));
      }
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static String abbreviate(String s) {
    return s.length() <= 20 ? s : s.substring(0, 20) + "...";
  }
}
