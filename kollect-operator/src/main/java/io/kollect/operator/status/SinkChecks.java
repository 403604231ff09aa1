package io.kollect.operator.status;

import io.kollect.export.kafka.TopicCheck;
import io.kollect.export.otlp.PartialSuccess;
import io.kollect.export.postgres.DatabaseCheck;
import io.kollect.export.postgres.WriterConflict;
import java.util.List;

/**
 * What a sink type's own checks found, beside its configuration and its deliveries: one value per
 * sink, so a new sink type adds a component here instead of another status overload.
 *
 * @param topic a kafka sink's last topic check; {@code null} for other types
 * @param database a postgres sink's last database check; {@code null} for other types
 * @param writerConflicts live postgres writers of the same cluster names with another identity
 * @param partial an otlp sink's last partial success; {@code null} for none or another type
 */
public record SinkChecks(TopicCheck topic, DatabaseCheck database,
    List<WriterConflict> writerConflicts, PartialSuccess partial) {

  /** Nothing checked: a sink type without checks of its own. */
  public static final SinkChecks NONE = new SinkChecks(null, null, List.of(), null);

  public SinkChecks {
    writerConflicts = writerConflicts == null ? List.of() : List.copyOf(writerConflicts);
  }

  /** Only a kafka topic check. */
  public static SinkChecks topic(TopicCheck topic) {
    return new SinkChecks(topic, null, List.of(), null);
  }

  /**
   * Whether the destination can be written, in the topic check's shape: the topic check, else
   * the database check read as one (the same conditions follow from both).
   */
  TopicCheck writable() {
    if (topic != null || database == null) {
      return topic;
    }
    return new TopicCheck(switch (database.status()) {
      case UNKNOWN -> TopicCheck.Status.UNKNOWN;
      case READY -> TopicCheck.Status.READY;
      case ERROR -> TopicCheck.Status.ERROR;
    }, database.reason(), database.message());
  }
}
