/**
 * The postgres sink: the inventory as SQL, in PostgreSQL tables the sink owns and migrates.
 *
 * <p>{@link io.kollect.export.postgres.PostgresSink} is an {@link io.kollect.export.Sink}
 * configured by {@link io.kollect.export.postgres.PostgresSinkConfig}: a view {@code objects} of
 * the current objects, tombstones for deletes, an optional {@code changes} history, the newest
 * {@code sequence} winning whatever the order of arrival, acknowledgement only after commit.
 * {@link io.kollect.export.postgres.DatabaseCheck} is the outcome of the connection and schema
 * check and {@link io.kollect.export.postgres.WriterConflict} a second writer of one cluster name,
 * both shaped for a host's status. {@link io.kollect.export.postgres.PemSslFactory} is public only
 * because the JDBC driver loads it by name. This is its own artifact ({@code
 * kollect-export-postgres}) so embedders that do not use PostgreSQL never get the driver.
 * Reference: {@code docs/sinks.md}, section "postgres".
 */
package io.kollect.export.postgres;
