/**
 * KollectProfiles and their lifecycle: their feed into the engine and the report of targets naming
 * a missing one ({@link io.kollect.operator.profile.ProfileFeed}); every profile event goes through the engine's
 * {@code ProfileExperiments} ({@link io.kollect.operator.profile.ProfileLifecycle}) with revisions
 * kept as ControllerRevisions ({@link io.kollect.operator.profile.ControllerRevisionHistory}), the
 * lifecycle state read from and written to the profile's status ({@link
 * io.kollect.operator.profile.ProfileStates}), and experiments declared on the profile for GitOps
 * ({@link io.kollect.operator.profile.DeclaredExperiment}).
 */
package io.kollect.operator.profile;
