package io.kollect.core;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a target's last reconcile found.
 *
 * @param id the target
 * @param observedGeneration the spec generation this status describes
 * @param conditions {@code Ready} and {@code Degraded}
 * @param objectCounts exported objects per resource type ({@code apiVersion/Kind})
 * @param skipped parts of the scope that cannot be read
 * @param lastExport when records were last handed to the sinks, or {@code null}
 */
public record TargetStatus(
    TargetId id,
    long observedGeneration,
    List<Condition> conditions,
    Map<String, Integer> objectCounts,
    List<SkippedScope> skipped,
    Instant lastExport) {

  public TargetStatus {
    conditions = List.copyOf(conditions);
    objectCounts = Map.copyOf(objectCounts);
    skipped = List.copyOf(skipped);
  }

  /** The condition of the given type, or {@code null}. */
  public Condition condition(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst().orElse(null);
  }

  /** Whether {@code Ready} is {@code True}. */
  public boolean ready() {
    Condition c = condition(Condition.READY);
    return c != null && "True".equals(c.status());
  }
}
