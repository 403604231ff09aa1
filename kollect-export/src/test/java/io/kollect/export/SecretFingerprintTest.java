package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SecretFingerprintTest {

  @Test
  void equalExactlyWhenEveryValueIs() {
    assertThat(SecretFingerprint.of("user", "hunter2")).isEqualTo(SecretFingerprint.of("user", "hunter2"))
        .hasSameHashCodeAs(SecretFingerprint.of(List.of("user", "hunter2")));
    assertThat(SecretFingerprint.of("user", "hunter3")).isNotEqualTo(SecretFingerprint.of("user", "hunter2"));
  }

  @Test
  void valuesAreLengthPrefixedAndAMissingValueIsNotAnEmptyOne() {
    // without the length prefix both lists would hash the bytes "ab"
    assertThat(SecretFingerprint.of("a", "b")).isNotEqualTo(SecretFingerprint.of("ab", ""));
    assertThat(SecretFingerprint.of((String) null)).isNotEqualTo(SecretFingerprint.of(""));
  }

  @Test
  void neverPrintsAValue() {
    assertThat(SecretFingerprint.of("hunter2")).hasToString("SecretFingerprint[redacted]");
  }
}
