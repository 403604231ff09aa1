/**
 * Export checkpoints kept in ConfigMaps in the operator's namespace ({@link
 * io.kollect.operator.checkpoint.ConfigMapCheckpointStore}), so that a new leader with no disk of
 * its own continues where the old one stopped.
 */
package io.kollect.operator.checkpoint;
