/**
 * The embeddable Kollect engine.
 *
 * <p>Build a {@link io.kollect.core.KollectEngine} from a fabric8 {@code KubernetesClient}, give it
 * profiles, sinks and {@link io.kollect.core.TargetSpec targets} in code, and observe {@link
 * io.kollect.core.TargetStatus} through a listener. The engine leases shared informers for each
 * target's types and scope, applies each informer event as a delta (only the changed object is
 * re-read, extracted, scrubbed and handed to the exporter) and re-derives a target's whole set
 * level-based when its spec, profile, sinks or leases change, on a rate-limited work queue. No CRD classes, no
 * framework: the operator is one host of this API, an embedding controller is another.
 *
 * <p><b>Several clusters.</b> A target whose {@link io.kollect.core.TargetSpec#clusters()} names
 * other clusters is read once per cluster, through clients a {@link
 * io.kollect.core.ClusterConnections} supplies: each (cluster, target) has its own records, export
 * state and checkpoint, each cluster one shared set of informers, opened with its first target and
 * closed with its last; {@link io.kollect.core.ClusterHealth} reports each connection.
 *
 * <p><b>Who may read what.</b> An engine configured with none of {@link
 * io.kollect.core.KollectEngineBuilder#trustedNamespaces}, {@link
 * io.kollect.core.KollectEngineBuilder#defaultServiceAccount} and {@link
 * io.kollect.core.KollectEngineBuilder#accessReviewer} checks nothing: every target reads what the
 * engine's client may read. Configuring any of them turns the tenant boundary on: a target outside
 * the trusted namespaces reads only what its ServiceAccount ({@link
 * io.kollect.core.TargetSpec#serviceAccount()} or the default) may list and watch, as answered by
 * an {@link io.kollect.core.AccessReviewer} (SubjectAccessReview unless another is given), cached
 * and re-checked every {@link io.kollect.core.KollectEngineBuilder#accessReviewInterval}. The
 * boundary applies to the engine's own cluster; on another cluster the credential is the boundary.
 *
 * <p><b>Inside</b> (package-private; {@code docs/architecture.md} draws it). {@code KollectEngine}
 * keeps the public API and wires the units. A pass runs one way: an informer event marks a key
 * dirty ({@code TargetReconciler}'s lease listener) and queues the target ({@code WorkQueue});
 * {@code ReconcileWorkers} takes it past the {@code CircuitBreaker} to {@code
 * TargetReconciler.reconcile}, which plans the pass, runs {@code FullPass} or {@code DeltaPass}
 * (each returns its {@code RecordChanges} and facts), hands the changes to {@code HandOver} (the
 * in-memory view and the {@code Exporter}) and builds the status ({@code StatusBuilder}, {@code
 * ClusterStatusMerge} for several clusters); the worker adds the circuit's condition and {@code
 * StatusPublisher} stores it and tells the listeners. {@code ShadowEvaluation} compares candidate
 * profiles beside the targets on its own thread; {@code OpenClusters} keeps the other clusters'
 * connections and their health.
 */
package io.kollect.core;
