package io.kollect.operator.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kollect.operator.KollectOperator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says a problem with a Kollect object once: one ERROR line when it is first seen or changes, one
 * INFO line when it is resolved, and on the leader a Warning Event on the object. A resync that
 * finds the same problem says nothing.
 */
public final class ProblemReports {

  private static final Logger log = LoggerFactory.getLogger(KollectOperator.class);

  /** Records an Event; production passes {@link ProblemEvents#warn}. */
  public interface Events {
    void warn(HasMetadata object, String reason, String message);
  }

  private final Events events;
  private final Executor executor;
  private final BooleanSupplier leader;
  /** A problem said: its line, and whether its Event is recorded (only a leader records). */
  private record Said(String line, HasMetadata resource, String reason, boolean evented) {}

  /**
   * The last problem said per object ({@code Kind namespace/name}) and reason: an object can have
   * several at once (a target naming a missing profile and with an invalid selector), and one
   * resolving does not resolve the other.
   */
  private final Map<String, Said> said = new ConcurrentHashMap<>();

  public ProblemReports(Events events, Executor executor, BooleanSupplier leader) {
    this.events = events;
    this.executor = executor;
    this.leader = leader;
  }

  /**
   * Reports the object's current problem, or that it has none ({@code problem == null}).
   *
   * @param object how the object is named in the log, {@code Kind namespace/name}
   */
  public void report(HasMetadata resource, String reason, String object, String problem) {
    String key = object + "|" + reason;
    if (problem == null) {
      if (said.remove(key) != null) {
        log.info("{}: problem resolved", object);
      }
      return;
    }
    String line = firstLine(problem);
    boolean leading = leader.getAsBoolean();
    Said before = said.get(key);
    if (before != null && before.line().equals(line)) {
      return;
    }
    said.put(key, new Said(line, resource, reason, leading));
    log.error(line);
    if (leading) {
      executor.execute(() -> events.warn(resource, reason, line));
    }
  }

  /**
   * Records the Events of problems said while this instance did not lead (a new leader): each
   * problem it knows then has its Event, and no line is logged twice.
   */
  public void recordMissingEvents() {
    said.replaceAll((object, s) -> {
      if (!s.evented()) {
        executor.execute(() -> events.warn(s.resource(), s.reason(), s.line()));
      }
      return new Said(s.line(), s.resource(), s.reason(), true);
    });
  }

  /** The object is gone: a later object of the same name is reported afresh. */
  public void forget(String object) {
    said.keySet().removeIf(k -> k.startsWith(object + "|"));
  }

  public static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
