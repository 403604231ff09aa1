/**
 * The embeddable Kollect engine.
 *
 * <p>Build a {@link io.kollect.core.KollectEngine} from a fabric8 {@code KubernetesClient}, give it
 * profiles, sinks and {@link io.kollect.core.TargetSpec targets} in code, and observe {@link
 * io.kollect.core.TargetStatus} through a listener. The engine leases shared informers for each
 * target's types and scope, reconciles targets level-based on a rate-limited work queue, extracts
 * and scrubs records, and hands each target's desired set to the exporter. No CRD classes, no
 * framework: the operator is one host of this API, an embedding controller is another.
 */
package io.kollect.core;
