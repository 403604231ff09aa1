package io.kollect.export;

/**
 * What one writer's batches took per item lately, to size the next batch's buffer.
 *
 * <p>Why: a {@link java.io.ByteArrayOutputStream} that starts too small is doubled and copied as it
 * fills, so a first inventory's batches (hundreds of records, tens of thousands of checkpoint
 * entries) were allocated two to three times over before they were written; their buffers were a
 * fifth of what the operator allocated for a 50,000-object first inventory (docs/benchmarks.md).
 * Sized from the batch before it, a buffer is allocated once. A guess never reserves more than
 * its cap: past that, a buffer grows as it fills, as before, so that where items differ in size
 * (records: one large object) one batch does not make every later one reserve room for its like.
 *
 * <p>Thread-safe: a stale figure only costs a regrowth.
 */
final class BatchSizeHint {

  /** The cap for batches of records: a record's size depends on its object. */
  static final int RECORDS_MAX_BYTES = 4 << 20;

  private final int maxBytes;
  private volatile int bytesPerItem;

  /**
   * @param bytesPerItem the first guess, before any batch was measured
   * @param maxBytes the most a guess reserves
   */
  BatchSizeHint(int bytesPerItem, int maxBytes) {
    if (bytesPerItem < 1) {
      throw new IllegalArgumentException("bytesPerItem must be positive: " + bytesPerItem);
    }
    if (maxBytes < bytesPerItem) {
      throw new IllegalArgumentException("maxBytes must be at least bytesPerItem: " + maxBytes);
    }
    this.bytesPerItem = bytesPerItem;
    this.maxBytes = maxBytes;
  }

  /** A buffer size for {@code items} items: the last measured size per item, an eighth more. */
  int bytesFor(int items) {
    long bytes = (long) Math.max(items, 1) * bytesPerItem;
    return (int) Math.min(bytes + bytes / 8 + 64, maxBytes);
  }

  /** Remembers what a batch of {@code items} items took; an empty batch teaches nothing. */
  void observe(int items, int bytes) {
    if (items > 0 && bytes > 0) {
      bytesPerItem = Math.max(1, bytes / items);
    }
  }
}
