package io.kollect.informers;

import java.time.Instant;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Sums what every informer of a registry shows of the connection into one {@link
 * ConnectionHealth}: the worst problem wins (unauthorized, then unreachable, then forbidden), and
 * the newest sign of life is the last contact. Not thread-safe: one per computation.
 */
final class HealthTally {

  private final SortedSet<ResourceType> watched =
      new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
  private int openWatches;
  private long lastAliveMillis = Long.MIN_VALUE;
  private ConnectionHealth.Problem problem = ConnectionHealth.Problem.NONE;
  private String message;
  private int forbiddenTypes;
  private boolean anyServing;

  void watched(ResourceType type) {
    watched.add(type);
    anyServing = true;
  }

  /** A leased type with no informer that is not forbidden (not served, or being planned). */
  void idle() {
    anyServing = true;
  }

  void forbidden(ResourceType type) {
    forbiddenTypes++;
    if (message == null) {
      message = "listing or watching " + type + " is forbidden";
    }
  }

  void watch(String which, WatchLiveness liveness, Instant now) {
    if (liveness.streaming()) {
      openWatches++;
    }
    lastAliveMillis = Math.max(lastAliveMillis, liveness.lastAliveMillis());
    int code = liveness.failureCode();
    if (code == 401) {
      worse(ConnectionHealth.Problem.UNAUTHORIZED, "the API server rejects the credential (HTTP "
          + "401) on " + which);
    } else if (liveness.unreachable(now) || (code == 0 && liveness.stalled(now) != null)) {
      String why = liveness.problem();
      worse(ConnectionHealth.Problem.UNREACHABLE, which + ": "
          + (why == null ? "silent past its liveness window" : why));
    }
  }

  /** A planning request (discovery, access review) failed, or {@code null} when it worked. */
  void planning(PlanFailure failure, long lastPlannedMillis) {
    if (lastPlannedMillis > 0) {
      lastAliveMillis = Math.max(lastAliveMillis, lastPlannedMillis);
    }
    if (failure == null) {
      return;
    }
    if (failure.code() == 401) {
      worse(ConnectionHealth.Problem.UNAUTHORIZED,
          "the API server rejects the credential (HTTP 401) on discovery");
    } else if (failure.code() == 0) {
      worse(ConnectionHealth.Problem.UNREACHABLE, "discovery failed: " + failure.message());
    }
  }

  private void worse(ConnectionHealth.Problem p, String why) {
    if (p.ordinal() < problem.ordinal()) {
      problem = p;
      message = why;
    }
  }

  ConnectionHealth result() {
    ConnectionHealth.Problem p = problem;
    String m = message;
    if (p == ConnectionHealth.Problem.NONE && forbiddenTypes > 0 && !anyServing) {
      p = ConnectionHealth.Problem.FORBIDDEN;
    } else if (p == ConnectionHealth.Problem.NONE) {
      m = null;
    }
    return new ConnectionHealth(p, m, watched.stream().toList(), openWatches,
        lastAliveMillis == Long.MIN_VALUE ? null : Instant.ofEpochMilli(lastAliveMillis));
  }

  /** The last failed planning request: its HTTP status ({@code 0}: no answer) and why. */
  record PlanFailure(int code, String message) {}
}
