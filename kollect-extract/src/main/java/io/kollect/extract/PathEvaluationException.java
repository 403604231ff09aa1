package io.kollect.extract;

/**
 * A path that is valid but cannot be applied to a value the way kubectl would fail on it ("hello is
 * not found", "array index out of bounds: index -1, length 4"); the message is kubectl's and never
 * contains a value of the object.
 */
final class PathEvaluationException extends Exception {
  PathEvaluationException(String message) {
    super(message, null, false, false);
  }
}
