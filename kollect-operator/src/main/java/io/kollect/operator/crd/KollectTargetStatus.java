package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;

/**
 * {@code KollectTarget.status}, written by the leader.
 *
 * @param observedGeneration the spec generation this status describes
 * @param conditions {@code Ready} and {@code Degraded}
 * @param objectCounts exported objects per resource type ({@code apiVersion/Kind})
 * @param skipped parts of the scope that cannot be read
 * @param lastExportTime when records were last handed to the sinks (RFC 3339)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectTargetStatus(
    Long observedGeneration,
    List<Condition> conditions,
    Map<String, Integer> objectCounts,
    List<SkippedEntry> skipped,
    String lastExportTime) {}
