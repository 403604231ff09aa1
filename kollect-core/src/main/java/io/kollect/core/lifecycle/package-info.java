/**
 * Safe change of profiles: every spec a profile had is a {@link
 * io.kollect.core.lifecycle.ProfileRevision}, and a candidate spec can run as an {@link
 * io.kollect.core.lifecycle.Experiment} that is promoted, rolled back, timed out or aborted.
 *
 * <p>{@link io.kollect.core.lifecycle.ExperimentTransitions} is the whole state machine as pure
 * functions; {@link io.kollect.core.lifecycle.ProfileHistory} is the store SPI (revisions, the
 * profile's spec and its lifecycle state with compare-and-set), kept in memory by {@link
 * io.kollect.core.lifecycle.ProfileHistory#inMemory()} and by ControllerRevisions and status in the
 * operator; {@link io.kollect.core.lifecycle.ProfileExperiments} is the API an embedder or a CLI
 * calls, and the reconcile that drives a {@link io.kollect.core.KollectEngine}'s profile and shadow
 * profile from the stored state. Nothing here knows a CRD class.
 */
package io.kollect.core.lifecycle;
