package io.kollect.operator.cli;

/** Input the user must fix: reported as one line and exit code 2. */
final class BadInputException extends RuntimeException {
  public BadInputException(String message) {
    super(message);
  }

  public BadInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
