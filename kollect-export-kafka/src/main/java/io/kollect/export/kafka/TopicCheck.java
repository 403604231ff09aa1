package io.kollect.export.kafka;

import java.util.Objects;

/**
 * The outcome of {@link KafkaSink#checkTopic()}, shaped for a status condition: {@code reason} is
 * a word a machine can switch on, {@code message} a sentence a person can act on.
 *
 * @param status whether the sink can write ({@link Status#READY}, {@link Status#WARNING}) or not
 * @param reason {@code TopicReady}, {@code TopicCreated}, {@code TopicNotCompacted}, {@code
 *     TopicMissing}, {@code TopicCheckFailed} or {@code NotChecked}
 * @param message what was found, naming the topic and the brokers
 */
public record TopicCheck(Status status, String reason, String message) {

  /** How the topic check went. */
  public enum Status {
    /** Not checked yet (the first write checks). */
    UNKNOWN,
    /** The topic exists and is compacted (or was just created compacted). */
    READY,
    /** The topic exists but is not compacted: writes go on, deleted objects are never forgotten. */
    WARNING,
    /** The topic is missing (and may not be created) or the brokers could not be asked. */
    ERROR
  }

  public TopicCheck {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
  }

  /** Whether the sink writes with this outcome ({@link Status#READY} or {@link Status#WARNING}). */
  public boolean writable() {
    return status == Status.READY || status == Status.WARNING;
  }

  static TopicCheck notChecked(String topic) {
    return new TopicCheck(Status.UNKNOWN, "NotChecked", "topic " + topic + ": not checked yet");
  }
}
