/**
 * Makes every configured sink converge to each target's desired set of scrubbed records.
 *
 * <p>{@link io.kollect.export.Exporter} diffs a target's desired records against the last exported
 * content hashes per sink, sends UPSERTs for what is new or changed and DELETE tombstones for what
 * vanished, re-sends the full set on a long heartbeat, and delivers through per-sink threads with a
 * lane per target that coalesces by object key (memory bounded by objects, not events), with
 * retries and backoff per target. Every delivered record carries a per-key {@code sequence} so a
 * receiver can refuse a late, older state. {@link io.kollect.export.Sink} is the SPI for
 * destinations (a sink names records it can never deliver with {@link
 * io.kollect.export.RecordsRejectedException}); {@link io.kollect.export.Exporter#deliveryStatus}
 * reports each (target, sink) as a {@link io.kollect.export.DeliveryStatus}; {@link
 * io.kollect.export.CheckpointStore} persists the last exported state across restarts ({@link
 * io.kollect.export.FileCheckpointStore} keeps it in files).
 *
 * <p>Sinks provided: {@link io.kollect.export.StdoutSink} and {@link io.kollect.export.FileSink}
 * (JSON lines), {@link io.kollect.export.HttpSink} (JSON array batches, configured by {@link
 * io.kollect.export.HttpSinkConfig}) and {@link io.kollect.export.InventorySink} (an in-memory,
 * queryable {@link io.kollect.export.InventoryView}). The reference for their settings, retry
 * semantics, checkpoints and metrics is {@code docs/sinks.md}.
 */
package io.kollect.export;
