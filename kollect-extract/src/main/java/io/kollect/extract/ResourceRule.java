package io.kollect.extract;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What to extract from objects of one resource type.
 *
 * @param group API group, empty or absent for the core group
 * @param version API version
 * @param kind kind
 * @param fields the fields to extract, each a name and a kubectl-dialect JSONPath
 * @param labels glob allow-list of label keys to copy (none when empty)
 * @param annotations glob allow-list of annotation keys to copy (none when empty); the
 *     last-applied-configuration annotation is never copied
 * @param scrubKeys extra glob patterns on key names whose values are replaced by {@code ********}
 * @param includeSecretData accepted so that existing profiles keep loading, and ignored: Secret
 *     values are never exported; paths into a Secret's {@code data}/{@code stringData} always see
 *     per-key metadata (length, keyed digest, certificate metadata), and {@link
 *     CompiledProfile#warnings()} says so
 * @param helmRelease opt-in to decoding Helm 3 release storage (Secret/ConfigMap) so that paths
 *     can address the decoded release under {@code $.release}
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record ResourceRule(
    String group,
    String version,
    String kind,
    List<FieldRule> fields,
    List<String> labels,
    List<String> annotations,
    List<String> scrubKeys,
    boolean includeSecretData,
    boolean helmRelease) {

  public ResourceRule {
    group = group == null ? "" : group;
    fields = fields == null ? List.of() : List.copyOf(fields);
    labels = labels == null ? List.of() : List.copyOf(labels);
    annotations = annotations == null ? List.of() : List.copyOf(annotations);
    scrubKeys = scrubKeys == null ? List.of() : List.copyOf(scrubKeys);
  }

  /** The resource type this rule applies to; fails when version or kind is missing. */
  @JsonIgnore
  public GroupVersionKind gvk() {
    return new GroupVersionKind(group, version, kind);
  }
}
