package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code KollectProfile.status}: whether the profile compiles.
 *
 * @param observedGeneration the generation the conditions describe
 * @param conditions {@code Ready} (True when valid) and {@code Degraded} (True with the validation
 *     message when invalid)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectProfileStatus(Long observedGeneration, List<Condition> conditions) {}
