package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * {@code KollectProfile.status.experiment}: the profile's experiment, running or terminal (kept
 * at least a minute after it ends). Timestamps are RFC 3339.
 *
 * @param id the id given at start; promote and stop must name it
 * @param phase {@code running}, {@code promoted}, {@code rollback}, {@code timeout} or {@code
 *     aborted}
 * @param mode {@code shadow} (sinks keep the baseline) or {@code live}
 * @param startedAt when it started
 * @param deadline when a running experiment times out
 * @param baselineRevision the ControllerRevision restored by stop and timeout
 * @param expectedSpecHash md5 of the defaulted candidate spec; any other spec aborts
 * @param finishedAt when it reached its terminal phase
 * @param message why it is in its phase
 * @param diff candidate vs baseline (shadow mode), refreshed every few seconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProfileExperimentStatus(
    @JsonPropertyDescription("The experiment's id; promote and stop must name it.") String id,
    @JsonPropertyDescription("running, promoted, rollback, timeout or aborted.") String phase,
    @JsonPropertyDescription("shadow (sinks keep receiving the baseline) or live.") String mode,
    @JsonPropertyDescription("When it started (RFC 3339).") String startedAt,
    @JsonPropertyDescription("When a running experiment times out and rolls back (RFC 3339).")
        String deadline,
    @JsonPropertyDescription("The ControllerRevision that stop and timeout restore.")
        String baselineRevision,
    @JsonPropertyDescription("md5 of the defaulted candidate spec; any other spec aborts.")
        String expectedSpecHash,
    @JsonPropertyDescription("When it reached its terminal phase (RFC 3339).") String finishedAt,
    @JsonPropertyDescription("Why it is in its phase.") String message,
    @JsonPropertyDescription("What the candidate would deliver compared with the baseline.")
        ExperimentDiff diff) {

  /**
   * {@code status.experiment.diff}: counts over the objects in scope of the profile's targets.
   *
   * @param objects objects evaluated
   * @param added records the candidate would send that the baseline does not
   * @param removed records the baseline sends that the candidate would not
   * @param changed records both send with different content
   * @param fieldChanges per field name, how many changed records differ in it
   * @param errors objects the candidate fails to extract
   * @param scrubHits values the candidate's records hold scrubbed
   * @param bytesBaseline the baseline records' size as JSON lines ({@code observedAt} counted at
   *     its full nanosecond width)
   * @param bytesCandidate the candidate records' size, counted likewise
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ExperimentDiff(
      Long objects,
      Long added,
      Long removed,
      Long changed,
      java.util.Map<String, Long> fieldChanges,
      Long errors,
      Long scrubHits,
      Long bytesBaseline,
      Long bytesCandidate) {}
}
