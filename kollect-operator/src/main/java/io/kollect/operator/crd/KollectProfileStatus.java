package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code KollectProfile.status}: whether the profile compiles.
 *
 * @param observedGeneration the generation the conditions describe
 * @param conditions {@code Ready} (True when valid), {@code Degraded} and {@code Stalled} (True
 *     with the validation message when invalid), {@code Warning} (fields accepted but ignored)
 * @param resources how many resource types the profile collects (the printer column)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectProfileStatus(
    Long observedGeneration,
    List<Condition> conditions,
    @JsonPropertyDescription("How many resource types the profile collects.") Integer resources) {

  /** The status before issue 12 (no resource count). */
  public KollectProfileStatus(Long observedGeneration, List<Condition> conditions) {
    this(observedGeneration, conditions, null);
  }
}
