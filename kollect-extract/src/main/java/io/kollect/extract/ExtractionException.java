package io.kollect.extract;

/**
 * An object that cannot be turned into a record (for example a Helm release Secret whose data is
 * corrupt, or an object without {@code metadata.name}). The message names the object and the
 * problem, never a value from the object.
 */
public final class ExtractionException extends RuntimeException {
  public ExtractionException(String message) {
    super(message);
  }
}
