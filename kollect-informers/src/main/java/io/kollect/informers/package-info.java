/**
 * Shared dynamic informers for resource types chosen at run time.
 *
 * <p>{@link io.kollect.informers.InformerRegistry} keeps one informer per (cluster, resource type)
 * however many {@link io.kollect.informers.InformerLease leases} share it, so API load scales with
 * the number of types, not with the number of consumers. It checks RBAC before watching and degrades
 * to the namespaces it may read, waits for types that are not served yet, stops informers no lease
 * needs, and keeps a memory-lean cache (projections of the paths leases need). Every watch has a
 * liveness window ({@link io.kollect.informers.InformerOptions#watchLiveness()}): a connection that
 * dies silently is noticed, reported ({@link io.kollect.informers.StalledWatch}) and replaced.
 * With an {@link io.kollect.informers.ObjectOwnership} (sharding) objects this process does not own
 * are dropped before the cache; a cluster it owns whole is not filtered at all.
 *
 * <p>Inside (package-private), one type is a {@code TypeState}: {@code ScopePlanner} decides which
 * scopes and projection run (a pure function of leases, discovery and {@code AccessReview}),
 * {@code InformerSet} runs their {@code InformerHandle}s make-before-break (with {@code Handover}
 * while two informers speak for one lease), each listing and watching through a {@code
 * LivenessListerWatcher} (whose list pages a {@code ProjectedListReader} decodes for the projection)
 * into a {@code TrimmingItemStore}, and {@code EventRouter} hands each
 * change to the leases ({@code LeaseHandle}) whose scope holds it. The reference is {@code
 * docs/informers.md}.
 */
package io.kollect.informers;
