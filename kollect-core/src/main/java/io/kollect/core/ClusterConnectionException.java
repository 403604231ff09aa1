package io.kollect.core;

import java.util.Objects;

/**
 * A cluster connection that cannot be opened, with the CamelCase reason targets report. The
 * message must name the problem (and the field, for a bad kubeconfig) and never a credential.
 */
public final class ClusterConnectionException extends Exception {

  private static final long serialVersionUID = 1L;

  /** No such cluster. */
  public static final String REASON_NOT_FOUND = "ClusterNotFound";
  /** The kubeconfig is malformed, incomplete or asks for what the host does not allow. */
  public static final String REASON_INVALID_KUBECONFIG = "InvalidKubeConfig";
  /** The cluster's definition may not be used by this target (another namespace). */
  public static final String REASON_FORBIDDEN = "Forbidden";

  private final String reason;

  public ClusterConnectionException(String reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public ClusterConnectionException(String reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The CamelCase reason, e.g. {@link #REASON_INVALID_KUBECONFIG}. */
  public String reason() {
    return reason;
  }
}
