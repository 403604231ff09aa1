/**
 * KollectTargets and the custom resources fed to the engine: the feed that watches profiles,
 * sinks and targets and puts them into the engine ({@link
 * io.kollect.operator.target.CustomResourceFeed}), their translation to the core model ({@link
 * io.kollect.operator.target.CrTranslation}), forced reconciles ({@link
 * io.kollect.operator.target.ReconcileRequests}) and a target's status from the engine's ({@link
 * io.kollect.operator.target.TargetStatuses}).
 */
package io.kollect.operator.target;
