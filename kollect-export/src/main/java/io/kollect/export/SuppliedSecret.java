package io.kollect.export;

import java.util.function.Supplier;

/**
 * Reads one credential (a password, a private key, an API key) from the supplier a sink was
 * configured with, at the moment the sink needs it, so that a rotated Secret reaches the sink
 * without a restart. A supplier that throws, or returns nothing, is named by its field and never by
 * its value or the exception's message, which could quote either.
 */
public final class SuppliedSecret {

  private SuppliedSecret() {}

  /** A credential that could not be read; the message names the field only. */
  public static final class UnavailableException extends Exception {
    public UnavailableException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The supplier's current value; {@code null} when there is no supplier (the credential is not
   * configured).
   *
   * @param field the configuration field, for the message
   * @param mayBeBlank whether an empty value is a value (a password may be empty)
   * @throws UnavailableException when the supplier throws, returns {@code null}, or returns a blank
   *     value that may not be blank
   */
  public static String read(Supplier<String> supplier, String field, boolean mayBeBlank)
      throws UnavailableException {
    if (supplier == null) {
      return null;
    }
    String value;
    try {
      value = supplier.get();
    } catch (RuntimeException e) {
      throw new UnavailableException(
          "cannot read " + field + " (" + e.getClass().getSimpleName() + ")");
    }
    if (value == null || (!mayBeBlank && value.isBlank())) {
      throw new UnavailableException(field + " is missing (empty)");
    }
    return value;
  }
}
