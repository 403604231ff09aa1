/**
 * Leader election on a Lease ({@link io.kollect.operator.leader.LeaderElection}, settings {@link
 * io.kollect.operator.leader.LeaderElectionSettings}) and what gaining or losing the lead does to
 * the rest of the operator ({@link io.kollect.operator.leader.Leadership}): only the leader exports
 * and writes; every replica keeps warm caches.
 */
package io.kollect.operator.leader;
