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
 */
package io.kollect.informers;
