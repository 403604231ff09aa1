package io.kollect.operator.http;

import java.util.Objects;

/**
 * What the operator serves over HTTP ({@code --metrics-bind-address}, {@code
 * --health-probe-bind-address}, {@code --inventory-auth}, {@code --inventory-token-file}).
 *
 * @param metricsAddress where {@code /metrics} and {@code /inventory} are served
 * @param probeAddress where {@code /healthz} and {@code /readyz} are served
 * @param inventoryAuth who may read {@code /inventory}
 */
public record HttpSettings(BindAddress metricsAddress, BindAddress probeAddress,
    InventoryAuth inventoryAuth) {

  public HttpSettings {
    Objects.requireNonNull(metricsAddress, "metricsAddress");
    Objects.requireNonNull(probeAddress, "probeAddress");
    Objects.requireNonNull(inventoryAuth, "inventoryAuth");
  }

  /** Nothing served: both listeners off, {@code /inventory} disabled. */
  public static HttpSettings off() {
    return new HttpSettings(BindAddress.off(), BindAddress.off(), InventoryAuth.disabled());
  }
}
