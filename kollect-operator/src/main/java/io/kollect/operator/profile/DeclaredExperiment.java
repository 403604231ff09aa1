package io.kollect.operator.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ProfileExperiments.StartRequest;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileLoader;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import io.kollect.operator.crd.KollectProfile;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An experiment declared on the profile itself, for GitOps: the annotation {@value #ANNOTATION}
 * holds {@code id}, optional {@code mode} and {@code timeout}, and the {@code candidate} spec.
 * The manifest in Git keeps the baseline as its spec, so a GitOps tool re-applying it does not
 * abort the experiment; the experiment ends when the annotation goes (with the candidate as the
 * new spec: promoted; with the baseline: rolled back) or at its deadline.
 *
 * <pre>
 * metadata:
 *   annotations:
 *     kollect.io/experiment: |
 *       id: add-cpu
 *       mode: shadow        # or live
 *       timeout: 30m
 *       candidate:
 *         resources: [...]
 * </pre>
 */
final class DeclaredExperiment {

  /** The annotation carrying a declared experiment. */
  static final String ANNOTATION = "kollect.io/experiment";
  /** The message of a running declared experiment (how a reconcile knows it was declared). */
  static final String MESSAGE = "declared in annotation " + ANNOTATION;

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Set<String> KEYS = Set.of("id", "mode", "timeout", "candidate");

  private DeclaredExperiment() {}

  /**
   * The experiment the profile declares, if any.
   *
   * @throws IllegalArgumentException naming the annotation and key when it cannot be read
   */
  static Optional<StartRequest> of(KollectProfile profile) {
    Map<String, String> annotations = profile.getMetadata().getAnnotations();
    String text = annotations == null ? null : annotations.get(ANNOTATION);
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String where = "annotation " + ANNOTATION;
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + ": not YAML/JSON");
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(where + ": expected an object {id, mode, timeout, "
          + "candidate}");
    }
    root.fieldNames().forEachRemaining(k -> {
      if (!KEYS.contains(k)) {
        throw new IllegalArgumentException(where + ": unknown key \"" + k + "\"");
      }
    });
    String id = root.path("id").asText("");
    if (id.isBlank()) {
      throw new IllegalArgumentException(where + ": id is required");
    }
    if (!root.path("candidate").isObject()) {
      throw new IllegalArgumentException(where + ": candidate is required (a profile spec)");
    }
    ExperimentMode mode = ExperimentMode.SHADOW;
    if (root.has("mode")) {
      try {
        mode = ExperimentMode.fromWire(root.path("mode").asText());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
    }
    Duration timeout = null;
    if (root.has("timeout")) {
      String t = root.path("timeout").asText();
      try {
        timeout = io.fabric8.kubernetes.api.model.Duration.parse(t).getDuration();
      } catch (java.text.ParseException | RuntimeException e) {
        throw new IllegalArgumentException(where + ": timeout \"" + t + "\" is not a duration "
            + "(e.g. 30m)");
      }
    }
    try {
      ProfileSpec candidate = ProfileLoader.parse(root.path("candidate").toString(),
          where + " candidate");
      // Compiled here so that a candidate with a bad path is refused before it starts, as the
      // CLI refuses it.
      ProfileCompiler.compile(profile.getMetadata().getName(), candidate, ExtractOptions.none());
      return Optional.of(new StartRequest(id, candidate, mode, timeout));
    } catch (ProfileValidationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** The annotation's text (for change detection), or {@code null}. */
  static String text(Map<String, String> annotations) {
    return annotations == null ? null : annotations.get(ANNOTATION);
  }
}
