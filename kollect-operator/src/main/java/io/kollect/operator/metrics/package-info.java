/**
 * The operator's Micrometer meters ({@link io.kollect.operator.metrics.OperatorMetrics}): the
 * exporter's, the informers', the targets', the sinks', the clusters' and the inventory
 * objects' reports, exposed in the Prometheus text format. Names are documented in {@code
 * docs/operations.md}.
 */
package io.kollect.operator.metrics;
