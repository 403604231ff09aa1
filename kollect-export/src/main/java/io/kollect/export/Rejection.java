package io.kollect.export;

import java.util.Objects;

/**
 * A record a sink refused for good (for example, too large for the destination), reported in
 * {@link DeliveryStatus#rejected()}. The exporter does not offer that state again; a later change
 * of the object is sent normally.
 *
 * @param key the record key ({@code group/kind/namespace/name})
 * @param reason why the sink refused it, as the sink said (for example the size and the limit)
 */
public record Rejection(String key, String reason) {

  public Rejection {
    Objects.requireNonNull(key, "key");
    reason = reason == null || reason.isBlank() ? "rejected by the sink (no reason given)" : reason;
  }
}
