/**
 * The Kollect operator host: {@link io.kollect.operator.KollectOperator} runs one {@code
 * KollectEngine} fed from the Kollect custom resources, writes their status, keeps {@code
 * KollectInventory} objects and export checkpoints in the cluster, elects a leader on a Lease and
 * serves {@code /healthz}, {@code /readyz}, {@code /metrics} and {@code /inventory}.
 *
 * <p>{@link io.kollect.operator.OperatorConfig} is the whole configuration; the {@code kollect run}
 * flags map onto it one to one (see {@code docs/operations.md}). Everything else here is internal.
 */
package io.kollect.operator;
