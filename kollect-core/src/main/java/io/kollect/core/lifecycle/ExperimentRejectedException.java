package io.kollect.core.lifecycle;

/**
 * A start, promote or stop that the experiment's state does not allow (one already running, a
 * wrong id, a terminal phase); the message says why and what would be accepted.
 */
public final class ExperimentRejectedException extends RuntimeException {
  public ExperimentRejectedException(String message) {
    super(message);
  }
}
