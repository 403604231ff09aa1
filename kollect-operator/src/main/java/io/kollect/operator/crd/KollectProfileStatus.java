package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code KollectProfile.status}: whether the profile compiles, and its revisions and experiment
 * (docs/operations.md draws the lifecycle).
 *
 * @param observedGeneration the generation the conditions describe
 * @param conditions {@code Ready} (True when valid), {@code Degraded} and {@code Stalled} (True
 *     with the validation message when invalid), {@code Warning} (fields accepted but ignored)
 * @param resources how many resource types the profile collects (the printer column)
 * @param currentRevision the ControllerRevision of the spec last seen
 * @param previousRevision the ControllerRevision current before it
 * @param deliveredRevision the ControllerRevision whose records sinks receive (the baseline
 *     while a shadow experiment runs)
 * @param experiment the experiment, running or recently ended
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectProfileStatus(
    Long observedGeneration,
    List<Condition> conditions,
    @JsonPropertyDescription("How many resource types the profile collects.") Integer resources,
    @JsonPropertyDescription("The ControllerRevision of the spec last seen.")
        String currentRevision,
    @JsonPropertyDescription("The ControllerRevision current before it.") String previousRevision,
    @JsonPropertyDescription("The ControllerRevision whose records sinks receive (the baseline "
        + "while a shadow experiment runs).") String deliveredRevision,
    @JsonPropertyDescription("The experiment, running or recently ended.")
        ProfileExperimentStatus experiment) {

  /** The status without a resource count. */
  public KollectProfileStatus(Long observedGeneration, List<Condition> conditions) {
    this(observedGeneration, conditions, null);
  }

  /** The status without revisions. */
  public KollectProfileStatus(Long observedGeneration, List<Condition> conditions,
      Integer resources) {
    this(observedGeneration, conditions, resources, null, null, null, null);
  }
}
