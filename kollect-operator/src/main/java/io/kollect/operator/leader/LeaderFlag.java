package io.kollect.operator.leader;

/**
 * Whether this instance leads, as {@link Leadership} last set it. Every part that writes only on
 * the leader reads it; it exists apart from {@link Leadership} so that those parts can be built
 * before the leadership that reacts to them.
 */
public final class LeaderFlag {

  private volatile boolean leader;

  /** Whether this instance leads now. */
  public boolean isLeader() {
    return leader;
  }

  void set(boolean leading) {
    leader = leading;
  }
}
