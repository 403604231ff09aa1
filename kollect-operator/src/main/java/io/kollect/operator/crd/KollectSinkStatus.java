package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code KollectSink.status}.
 *
 * @param observedGeneration the generation the conditions describe
 * @param conditions {@code Ready}, {@code Degraded}, {@code Stalled} (only while True, kstatus) with
 *     the configuration problem, and {@code Insecure} while TLS verification is off
 * @param targets how many KollectTargets send to this sink (the printer column)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectSinkStatus(
    Long observedGeneration,
    List<Condition> conditions,
    @JsonPropertyDescription("How many KollectTargets send to this sink.") Integer targets) {

  /** The status without a target count. */
  public KollectSinkStatus(Long observedGeneration, List<Condition> conditions) {
    this(observedGeneration, conditions, null);
  }
}
