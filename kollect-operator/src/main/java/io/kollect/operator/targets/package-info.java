/**
 * KollectTargets into the engine: their feed ({@link io.kollect.operator.targets.TargetFeed}),
 * their translation to the core model ({@link io.kollect.operator.targets.CrTranslation}), forced
 * reconciles ({@link io.kollect.operator.targets.ReconcileRequests}), the cached KollectTargets
 * their other readers share ({@link io.kollect.operator.targets.KollectTargets}) and a target's
 * status from the engine's ({@link io.kollect.operator.targets.TargetStatuses}). The package is
 * plural because build tools and ignore files treat every directory named {@code target} as build
 * output.
 */
package io.kollect.operator.targets;
