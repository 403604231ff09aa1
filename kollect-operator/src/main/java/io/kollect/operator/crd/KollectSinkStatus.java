package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code KollectSink.status}.
 *
 * @param observedGeneration the generation the conditions describe
 * @param conditions {@code Ready}, or {@code Degraded} with the configuration problem
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectSinkStatus(Long observedGeneration, List<Condition> conditions) {}
