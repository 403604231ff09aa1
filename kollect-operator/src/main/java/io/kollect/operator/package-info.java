/**
 * The Kollect operator host, wiring only: {@link io.kollect.operator.KollectOperator} builds its
 * parts in dependency order and runs one {@code KollectEngine} fed from the Kollect custom
 * resources; {@link io.kollect.operator.OperatorConfig} is the whole configuration, built from one
 * settings record per feature; the {@code kollect run} flags map onto it one to one (see {@code
 * docs/operations.md}). Each feature is a subpackage: {@code targets}, {@code profile}, {@code sink},
 * {@code cluster}, {@code shard}, {@code inventory}, {@code status}, {@code leader}, {@code
 * checkpoint}, {@code http}, {@code metrics}; the command line is {@code cli}, the custom resource
 * types {@code crd}. The subpackages are the host's internals, not an API.
 */
package io.kollect.operator;
