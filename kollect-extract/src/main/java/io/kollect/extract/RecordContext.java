package io.kollect.extract;

import java.time.Instant;

/**
 * Where a record is produced: the values of a record that do not come from the object itself.
 *
 * @param cluster name of the cluster the object was read from
 * @param target the target's id ({@code namespace/name}, or any name an embedder chooses)
 * @param observedAt when the object state was observed
 */
public record RecordContext(String cluster, String target, Instant observedAt) {}
