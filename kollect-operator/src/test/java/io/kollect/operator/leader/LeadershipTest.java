package io.kollect.operator.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeadershipTest {

  private final List<String> steps = new ArrayList<>();
  private final List<Runnable> onWriter = new ArrayList<>();
  private final Leadership.Steps recording = new Leadership.Steps() {
    @Override
    public void forgetWritten() {
      steps.add("forget");
    }

    @Override
    public void export(boolean on) {
      steps.add("export " + on);
    }

    @Override
    public void catchUp() {
      steps.add("catch up");
    }

    @Override
    public void changed(boolean leading) {
      steps.add("changed " + leading);
    }
  };

  private void runWriter() {
    List<Runnable> due = List.copyOf(onWriter);
    onWriter.clear();
    due.forEach(Runnable::run);
  }

  @Test
  void withoutElectionItLeadsAtOnceAndCatchesUpOnceTheResourcesAreListed() {
    Leadership leadership = new Leadership(recording, onWriter::add, null);
    leadership.start();
    assertThat(leadership.isLeader()).isTrue();
    assertThat(leadership.known()).isTrue();
    runWriter();
    assertThat(steps).containsExactly("changed true", "forget", "export true");

    leadership.listed();
    runWriter();
    assertThat(steps).endsWith("catch up");
  }

  @Test
  void gainingTheLeadAfterTheListCatchesUpOnTheWriterAndLosingItStopsExport() {
    Leadership leadership = new Leadership(recording, onWriter::add, null);
    leadership.listed();
    leadership.changed(true);
    runWriter();
    assertThat(steps).containsExactly("changed true", "forget", "export true", "catch up");

    steps.clear();
    leadership.changed(false);
    assertThat(steps).containsExactly("changed false", "export false");
    assertThat(leadership.isLeader()).isFalse();
  }

  @Test
  void aCatchUpQueuedBeforeTheLeadWasLostDoesNotRun() {
    Leadership leadership = new Leadership(recording, onWriter::add, null);
    leadership.listed();
    leadership.changed(true);
    leadership.changed(false);
    runWriter();
    assertThat(steps).doesNotContain("catch up");
  }
}
