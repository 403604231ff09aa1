package io.kollect.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.operator.crd.KollectProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ProblemReportsTest {

  private final List<String> events = new ArrayList<>();
  private final AtomicBoolean leader = new AtomicBoolean();
  private final ProblemReports problems = new ProblemReports(
      (object, reason, message) -> events.add(reason + ": " + message), Runnable::run, leader::get);
  private final KollectProfile profile = new KollectProfile();

  @Test
  void theSameProblemIsRecordedOnceAndANewLeaderRecordsTheEventsAStandbyCouldNot() {
    problems.report(profile, "InvalidProfile", "KollectProfile p", "KollectProfile p is invalid\ndetail");
    problems.report(profile, "InvalidProfile", "KollectProfile p", "KollectProfile p is invalid\ndetail");
    assertThat(events).as("a standby records no Event").isEmpty();

    leader.set(true);
    problems.recordMissingEvents();
    problems.recordMissingEvents();
    assertThat(events).containsExactly("InvalidProfile: KollectProfile p is invalid");
  }

  @Test
  void aChangedProblemIsRecordedAgainAndAForgottenObjectStartsAfresh() {
    leader.set(true);
    problems.report(profile, "InvalidProfile", "KollectProfile p", "first");
    problems.report(profile, "InvalidProfile", "KollectProfile p", "second");
    problems.report(profile, "InvalidProfile", "KollectProfile p", null);
    problems.report(profile, "InvalidProfile", "KollectProfile p", "second");
    problems.forget("KollectProfile p");
    problems.report(profile, "InvalidProfile", "KollectProfile p", "second");
    assertThat(events).containsExactly("InvalidProfile: first", "InvalidProfile: second",
        "InvalidProfile: second", "InvalidProfile: second");
  }

  @Test
  void twoProblemsOfOneObjectResolveIndependently() {
    leader.set(true);
    problems.report(profile, "InvalidTarget", "KollectTarget ns/t", "bad selector");
    problems.report(profile, "ProfileNotFound", "KollectTarget ns/t", null);
    problems.report(profile, "InvalidTarget", "KollectTarget ns/t", "bad selector");
    assertThat(events).as("a missing profile resolving leaves the invalid selector said")
        .containsExactly("InvalidTarget: bad selector");
  }
}
