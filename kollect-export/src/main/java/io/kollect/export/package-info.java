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
 * io.kollect.export.CheckpointStore} persists what each sink acknowledged across restarts, and
 * hands it over between shards after a change of the shard count ({@link
 * io.kollect.export.FileCheckpointStore} keeps it in files).
 *
 * <p>Sinks provided: {@link io.kollect.export.StdoutSink} and {@link io.kollect.export.FileSink}
 * (JSON lines), {@link io.kollect.export.HttpSink} (JSON array batches or CloudEvents, optionally
 * signed the Standard Webhooks way by {@link io.kollect.export.WebhookSigning}, configured by
 * {@link io.kollect.export.HttpSinkConfig}) and {@link io.kollect.export.InventorySink} (an in-memory,
 * queryable {@link io.kollect.export.InventoryView}). The reference for their settings, retry
 * semantics, checkpoints and metrics is {@code docs/sinks.md}.
 *
 * <p>Inside (package-private), one change goes one way: {@code Exporter} (public API, the
 * targets' states and their locking) → {@code SinkDiff} (what each sink must be handed: changed
 * records with new sequences, tombstones) → {@code DeliveryChannel} (one sink's lanes, workers,
 * backoff) → {@code BatchWriter} (one write, rejections sorted out) → the {@code Sink}; the
 * acknowledgement lands in the (target, sink)'s {@code SinkState}, which {@code CheckpointBook}
 * writes to the {@code CheckpointStore} (it also loads it, takes entries over from other shards
 * and forgets disowned keys). {@code Heartbeats} re-sends the current sets on their interval;
 * {@code ConfiguredSinks} holds the sinks by name and which are suspended.
 */
package io.kollect.export;
