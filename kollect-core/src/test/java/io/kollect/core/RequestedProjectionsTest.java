package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseRequest;
import io.kollect.informers.ResourceType;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestedProjectionsTest {

  static final ResourceType CM = new ResourceType("", "v1", "ConfigMap");
  static final ResourceType SVC = new ResourceType("", "v1", "Service");

  static InformerLease lease(ResourceType type, List<List<String>> paths) {
    return new EmptyLease(new LeaseRequest(type, Set.of(), null, Set.of(), paths));
  }

  private final RequestedProjections projections = new RequestedProjections();

  @Test
  void theVersionChangesWhenPathsAreAddedOrRemovedAndNeverReturnsToAnEarlierValue() {
    InformerLease a = projections.track(lease(CM, List.of(List.of("data", "a"))));
    long v1 = projections.version(CM);
    projections.track(lease(CM, List.of(List.of("data", "a")))).close(); // same union
    assertThat(projections.version(CM)).isEqualTo(v1);

    InformerLease b = projections.track(lease(CM, List.of(List.of("data", "b"))));
    long v2 = projections.version(CM);
    assertThat(v2).isNotEqualTo(v1);
    b.close();
    long v3 = projections.version(CM);
    assertThat(v3).isNotIn(v1, v2);
    assertThat(projections.version(SVC)).isZero();

    projections.track(lease(CM, null)); // the whole object
    assertThat(projections.version(CM)).isNotIn(v1, v2, v3);
    a.close();
  }

  @Test
  void aWholeObjectRequestDiffersFromARequestOfNoPaths() {
    InformerLease none = projections.track(lease(CM, List.of()));
    long v1 = projections.version(CM);
    InformerLease whole = projections.track(lease(CM, null));
    assertThat(projections.version(CM)).isNotEqualTo(v1);
    whole.close();
    none.close();
  }
}
