package io.kollect.extract;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * A Kubernetes resource type. {@code group} is empty for the core group ({@code v1}).
 *
 * @param group API group, {@code ""} for core
 * @param version API version within the group, e.g. {@code v1}
 * @param kind the kind, e.g. {@code Deployment}
 */
@JsonPropertyOrder({"group", "version", "kind"})
public record GroupVersionKind(String group, String version, String kind) {

  public GroupVersionKind {
    group = group == null ? "" : group;
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(kind, "kind");
  }

  /** Parses an object's {@code apiVersion} ({@code apps/v1} or {@code v1}) together with its kind. */
  public static GroupVersionKind of(String apiVersion, String kind) {
    int slash = apiVersion.indexOf('/');
    return slash < 0
        ? new GroupVersionKind("", apiVersion, kind)
        : new GroupVersionKind(apiVersion.substring(0, slash), apiVersion.substring(slash + 1), kind);
  }

  /** The {@code apiVersion} string as it appears in manifests. */
  @JsonIgnore
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  @Override
  public String toString() {
    return apiVersion() + "/" + kind;
  }
}
