package io.kollect.informers;

/**
 * A resource type to watch. {@code group} is empty for the core group.
 *
 * @param group API group, {@code ""} for core
 * @param version version
 * @param kind kind
 */
public record ResourceType(String group, String version, String kind) {
  public ResourceType {
    group = group == null ? "" : group;
  }

  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  @Override
  public String toString() {
    return apiVersion() + "/" + kind;
  }
}
