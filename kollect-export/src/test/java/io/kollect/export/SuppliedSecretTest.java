package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SuppliedSecretTest {

  @Test
  void readsTheSuppliersCurrentValueAndNothingWithoutASupplier() throws Exception {
    assertThat(SuppliedSecret.read(() -> "hunter2", "sasl.password", false)).isEqualTo("hunter2");
    assertThat(SuppliedSecret.read(null, "sasl.password", false)).isNull();
    assertThat(SuppliedSecret.read(() -> "", "password", true)).isEmpty();
  }

  @Test
  void aFailingOrEmptySupplierIsNamedByItsFieldNeverByItsValueOrMessage() {
    assertThatThrownBy(() -> SuppliedSecret.read(() -> {
      throw new IllegalStateException("secret hunter2 not found");
    }, "tls.clientKeyPem", false))
        .isInstanceOf(SuppliedSecret.UnavailableException.class)
        .hasMessage("cannot read tls.clientKeyPem (IllegalStateException)");
    assertThatThrownBy(() -> SuppliedSecret.read(() -> "  ", "username", false))
        .hasMessage("username is missing (empty)");
    assertThatThrownBy(() -> SuppliedSecret.read(() -> null, "password", true))
        .hasMessage("password is missing (empty)");
  }
}
