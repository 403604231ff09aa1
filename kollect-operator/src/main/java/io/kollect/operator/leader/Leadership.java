package io.kollect.operator.leader;

import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when this instance gains or loses the lead; every replica watches and keeps warm
 * caches, only the leader exports and writes.
 *
 * <p>Gaining it: what a previous leadership wrote is forgotten (checkpoints, inventory objects and
 * statuses are re-read or written afresh), export is turned on, and then, on the writer's thread,
 * the inventory sweep runs once and every known problem and status is reported again. Losing it:
 * export is turned off; the caches stay. Without leader election the instance leads from the
 * start.
 */
public final class Leadership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Leadership.class);

  /** What to do on a change; each is one step of the operator's reaction, in this order. */
  public interface Steps {
    /** Forget what the previous leadership wrote (checkpoint and inventory state, statuses). */
    void forgetWritten();

    /** Turn export on or off. */
    void export(boolean on);

    /** Once leading: sweep orphaned inventory objects and report every problem and status. */
    void catchUp();

    /** The leadership state is published (metric, targets' status bookkeeping). */
    void changed(boolean leading);
  }

  private final Steps steps;
  private final Executor writer;
  private final LeaderElection election;
  private final LeaderFlag flag;
  private volatile boolean leader;
  private volatile boolean known;
  /** The Kollect resources are listed: the catch-up can run. */
  private boolean listed;

  /**
   * @param election the Lease election, or {@code null} to lead from {@link #start}
   * @param writer where {@link Steps#catchUp} runs (it makes API calls)
   */
  public Leadership(Steps steps, Executor writer, LeaderElectionFactory election) {
    this(steps, writer, election, new LeaderFlag());
  }

  /**
   * The same, publishing whether this instance leads in {@code flag} for the parts built before
   * this leadership.
   */
  public Leadership(Steps steps, Executor writer, LeaderElectionFactory election,
      LeaderFlag flag) {
    this.flag = flag;
    this.steps = steps;
    this.writer = writer;
    this.election = election == null ? null : election.create(this::changed, leader -> known = true);
  }

  /** Builds the election with this leadership's callbacks. */
  public interface LeaderElectionFactory {
    LeaderElection create(java.util.function.Consumer<Boolean> onLeadership,
        java.util.function.Consumer<String> onLeaderObserved);
  }

  /**
   * Without election: leads now (before the watches start, so that the first problems already
   * become Events). With election: nothing yet, see {@link #listed}.
   */
  public void start() {
    if (election == null) {
      changed(true);
    }
  }

  /**
   * The Kollect resources are listed: a leader catches up now, and with election the instance
   * starts competing.
   */
  public void listed() {
    synchronized (this) {
      listed = true;
      if (leader) {
        catchUp();
      }
    }
    if (election != null) {
      election.start();
    }
  }

  private void catchUp() {
    writer.execute(() -> {
      if (leader) {
        steps.catchUp();
      }
    });
  }

  synchronized void changed(boolean leading) {
    leader = leading;
    flag.set(leading);
    known = true;
    steps.changed(leading);
    if (leading) {
      steps.forgetWritten();
      steps.export(true);
      if (listed) {
        catchUp();
      }
    } else {
      steps.export(false);
    }
    log.debug("leading: {}", leading);
  }

  public boolean isLeader() {
    return leader;
  }

  /** Whether the leadership state is known (always without election; once a leader was seen). */
  public boolean known() {
    return known;
  }

  @Override
  public void close() {
    if (election != null) {
      election.close();
    }
  }
}
