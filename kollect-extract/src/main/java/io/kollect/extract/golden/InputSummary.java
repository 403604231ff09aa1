package io.kollect.extract.golden;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.CompiledProfile;
import io.kollect.extract.GroupVersionKind;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run over manifests read and what the profile made of it, so that "nothing matched" never
 * looks like success: {@code read 3 objects in 3 files; 0 matched the profile's resources
 * (apps/v1 Deployment); skipped: 3 db.example.com/v1 Database}. Counts by type only: it never
 * holds an object.
 */
public final class InputSummary {

  private final CompiledProfile profile;
  private final Map<String, Integer> skipped = new TreeMap<>();
  private int files;
  private int objects;
  private int matched;

  public InputSummary(CompiledProfile profile) {
    this.profile = profile;
  }

  /** Counts one input file (or stream). */
  public void file() {
    files++;
  }

  /** Counts one object read, as matched by the profile's resources or skipped by type. */
  public void object(JsonNode object) {
    objects++;
    String apiVersion = object.path("apiVersion").asText("");
    String kind = object.path("kind").asText("");
    if (!apiVersion.isEmpty() && !kind.isEmpty()
        && profile.matches(GroupVersionKind.of(apiVersion, kind))) {
      matched++;
      return;
    }
    String type = apiVersion.isEmpty() || kind.isEmpty()
        ? "without apiVersion/kind" : apiVersion + " " + kind;
    skipped.merge(type, 1, Integer::sum);
  }

  /** Objects whose type is one of the profile's resources. */
  public int matched() {
    return matched;
  }

  /** Objects read. */
  public int objects() {
    return objects;
  }

  /** The one-line account of what was read and skipped. */
  public String line() {
    StringBuilder sb = new StringBuilder("read ").append(count(objects, "object")).append(" in ")
        .append(count(files, "file")).append("; ").append(matched)
        .append(" matched the profile's resources (").append(resources(profile)).append(')');
    if (!skipped.isEmpty()) {
      sb.append("; skipped: ");
      String sep = "";
      for (Map.Entry<String, Integer> e : skipped.entrySet()) {
        sb.append(sep).append(e.getValue()).append(' ').append(e.getKey());
        sep = ", ";
      }
    }
    return sb.toString();
  }

  /** The profile's resource types as people write them: {@code apps/v1 Deployment, v1 Service}. */
  public static String resources(CompiledProfile profile) {
    return String.join(", ",
        profile.resources().stream().map(g -> g.apiVersion() + " " + g.kind()).toList());
  }

  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
