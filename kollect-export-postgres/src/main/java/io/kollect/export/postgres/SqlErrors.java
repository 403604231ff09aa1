package io.kollect.export.postgres;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Reads the SQLState of a failure and says what it means for delivery. Classes {@code 22} (data
 * exception), {@code 23} (integrity constraint) and {@code 54} (program limit, e.g. a value too
 * large) are about one record's content: a retry cannot fix them. Connection ({@code 08}),
 * transaction rollback ({@code 40}, serialization and deadlock), insufficient resources ({@code
 * 53}) and operator intervention ({@code 57}, e.g. a restart) pass by themselves. Anything else
 * (authentication, a missing table, a privilege) is about the configuration or the database, not
 * the records: retried too, after the sink checks the database again and reports what it found.
 */
final class SqlErrors {

  private static final Set<String> DATA_CLASSES = Set.of("22", "23", "54");
  private static final Set<String> TRANSIENT_CLASSES = Set.of("08", "40", "53", "57");

  private SqlErrors() {}

  /** The first SQLState in the failure's causes and chained exceptions, or {@code null}. */
  static String sqlState(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable t = failure;
    while (t != null && seen.put(t, Boolean.TRUE) == null) {
      if (t instanceof SQLException e) {
        // a batch failure carries the statement's own error as its next exception
        SQLException next = e.getNextException();
        if (next != null && next.getSQLState() != null) {
          return next.getSQLState();
        }
        if (e.getSQLState() != null) {
          return e.getSQLState();
        }
      }
      t = t.getCause();
    }
    return null;
  }

  /** Whether the failure is about a record's content (a retry of the same record fails again). */
  static boolean isDataError(Throwable failure) {
    String state = sqlState(failure);
    return state != null && state.length() == 5 && DATA_CLASSES.contains(state.substring(0, 2));
  }

  /**
   * Whether the failure passes by itself (connection, rollback, resources, operator intervention,
   * or no SQLState at all, as for a pool that timed out waiting for a connection).
   */
  static boolean isTransient(Throwable failure) {
    String state = sqlState(failure);
    return state == null || TRANSIENT_CLASSES.contains(state.substring(0, Math.min(2,
        state.length())));
  }

  /**
   * Whether the failure says the server cannot be reached or is going away (connection class
   * {@code 08}, operator intervention {@code 57} such as a shutdown, or no SQLState: the pool timed
   * out connecting).
   */
  static boolean isOutage(Throwable failure) {
    String state = sqlState(failure);
    return state == null || state.startsWith("08") || state.startsWith("57");
  }

  /**
   * The SQLState and the server's message and detail, for a person. The driver's own message of a
   * failed batch quotes the statement with its parameter values, so it is never used.
   */
  static String describe(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable t = failure;
    while (t != null && seen.put(t, Boolean.TRUE) == null) {
      if (t instanceof SQLException e) {
        SQLException carrier = e.getNextException() != null ? e.getNextException() : e;
        if (carrier.getSQLState() != null) {
          return "SQLState " + carrier.getSQLState() + ": " + serverMessage(carrier);
        }
      }
      t = t.getCause();
    }
    String message = failure.getMessage();
    Throwable cause = failure.getCause();
    return (message == null ? failure.getClass().getSimpleName() : message)
        + (cause != null && cause.getMessage() != null ? " (" + cause.getMessage() + ")" : "");
  }

  private static String serverMessage(SQLException e) {
    if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
      ServerErrorMessage m = p.getServerErrorMessage();
      return m.getMessage() + (m.getDetail() == null ? "" : " (" + m.getDetail() + ")");
    }
    return String.valueOf(e.getMessage());
  }
}
