package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BatchSizeHintTest {

  @Test
  void beforeAnyBatchTheGuessSizesTheBufferWithAnEighthToSpare() {
    BatchSizeHint hint = new BatchSizeHint(400, BatchSizeHint.RECORDS_MAX_BYTES);
    assertThat(hint.bytesFor(500)).isEqualTo(500 * 400 + 500 * 400 / 8 + 64);
    assertThat(hint.bytesFor(0)).isEqualTo(400 + 400 / 8 + 64);
  }

  @Test
  void aMeasuredBatchSizesTheNextOneSoItsBytesFitWithoutGrowing() {
    BatchSizeHint hint = new BatchSizeHint(400, BatchSizeHint.RECORDS_MAX_BYTES);
    hint.observe(500, 500 * 563 + 17);
    assertThat(hint.bytesFor(500)).isGreaterThanOrEqualTo(500 * 563 + 17);
    assertThat(hint.bytesFor(500)).isLessThan(500 * 563 * 5 / 4);
    hint.observe(10, 1000);
    assertThat(hint.bytesFor(10)).isEqualTo(10 * 100 + 10 * 100 / 8 + 64);
  }

  @Test
  void anEmptyBatchTeachesNothing() {
    BatchSizeHint hint = new BatchSizeHint(300, 1 << 20);
    hint.observe(0, 0);
    hint.observe(0, 5000);
    hint.observe(7, 0);
    assertThat(hint.bytesFor(2)).isEqualTo(600 + 600 / 8 + 64);
  }

  @Test
  void oneLargeItemNeverMakesTheNextBatchReserveMoreThanTheCap() {
    BatchSizeHint hint = new BatchSizeHint(400, BatchSizeHint.RECORDS_MAX_BYTES);
    hint.observe(1, 64 << 20);
    assertThat(hint.bytesFor(500)).isEqualTo(BatchSizeHint.RECORDS_MAX_BYTES);
    assertThat(hint.bytesFor(Integer.MAX_VALUE)).isEqualTo(BatchSizeHint.RECORDS_MAX_BYTES);
  }

  @Test
  void manyItemsOfOneShapeAreReservedForUpToTheirOwnCap() {
    BatchSizeHint hint = new BatchSizeHint(256, 256 << 20);
    hint.observe(100, 100 * 250);
    assertThat(hint.bytesFor(50_000)).isEqualTo(50_000 * 250 + 50_000 * 250 / 8 + 64);
  }

  @Test
  void aGuessBelowOneByteOrACapBelowTheGuessIsRefused() {
    assertThatThrownBy(() -> new BatchSizeHint(0, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytesPerItem");
    assertThatThrownBy(() -> new BatchSizeHint(100, 99))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBytes");
  }
}
