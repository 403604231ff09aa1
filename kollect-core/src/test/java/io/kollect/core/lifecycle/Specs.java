package io.kollect.core.lifecycle;

import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import java.util.List;

/** Small profile specs for the lifecycle tests. */
final class Specs {
  private Specs() {}

  /** Deployments with the given extracted fields (name → path). */
  static ProfileSpec deployments(String... namesAndPaths) {
    List<FieldRule> fields = new java.util.ArrayList<>();
    for (int i = 0; i < namesAndPaths.length; i += 2) {
      fields.add(FieldRule.of(namesAndPaths[i], namesAndPaths[i + 1]));
    }
    return new ProfileSpec(List.of(new ResourceRule("apps", "v1", "Deployment", fields,
        List.of(), List.of(), List.of(), false, false)));
  }

  static final ProfileSpec BASELINE = deployments("replicas", ".spec.replicas");
  static final ProfileSpec CANDIDATE = deployments("replicas", ".spec.replicas",
      "image", ".spec.template.spec.containers[0].image");
  static final ProfileSpec OTHER = deployments("ready", ".status.readyReplicas");
}
