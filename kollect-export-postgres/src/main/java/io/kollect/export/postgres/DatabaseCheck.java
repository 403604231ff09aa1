package io.kollect.export.postgres;

import java.util.Objects;

/**
 * What the postgres sink last found when it connected to the database and checked its schema,
 * shaped for a status condition: {@code reason} is a word a machine can switch on, {@code message}
 * says what to do. Reasons: {@code NotChecked}; {@code SchemaReady} and {@code SchemaMigrated}
 * ({@link Status#READY}); {@code Unreachable}, {@code TlsFailed}, {@code AuthenticationFailed}, {@code
 * DatabaseMissing}, {@code PermissionDenied}, {@code SchemaTooNew}, {@code CredentialsUnavailable}
 * and {@code DatabaseError} ({@link Status#ERROR}: records wait, coalesced, and the check runs
 * again before the next write, at the exporter's retry pace).
 *
 * @param status whether the sink can write
 * @param reason one word for the outcome
 * @param message what was found, naming the database and the cause, never a credential
 */
public record DatabaseCheck(Status status, String reason, String message) {

  /** Whether the sink can write. */
  public enum Status {
    /** Not checked yet. */
    UNKNOWN,
    /** Connected, schema at the version this code writes. */
    READY,
    /** The database cannot be written; {@code message} says why. */
    ERROR
  }

  public DatabaseCheck {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }

  static DatabaseCheck notChecked(String where) {
    return new DatabaseCheck(Status.UNKNOWN, "NotChecked", where + ": not checked yet");
  }

  /** Whether the sink can write. */
  public boolean ready() {
    return status == Status.READY;
  }
}
