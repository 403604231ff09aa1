package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.core.Shard;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Which shard writes a KollectCluster's status. */
class ClusterStatusesTest {

  @Test
  void exactlyOneShardWritesAClustersStatusAndSplitByClusterItIsTheOneThatReadsIt() {
    int total = 3;
    for (String name : IntStream.range(0, 40).mapToObj(i -> "cluster-" + i).toList()) {
      int writers = 0;
      for (int i = 0; i < total; i++) {
        Shard byCluster = new Shard(total, i, Shard.By.CLUSTER);
        boolean writes = ClusterStatuses.writtenBy(byCluster, name);
        assertThat(writes).as("%s on %s", name, byCluster)
            .isEqualTo(byCluster.reads("home", name));
        assertThat(ClusterStatuses.writtenBy(new Shard(total, i), name))
            .as("the same shard under the object rule").isEqualTo(writes);
        writers += writes ? 1 : 0;
      }
      assertThat(writers).as(name).isEqualTo(1);
    }
  }

  @Test
  void unshardedTheOperatorWritesEveryClustersStatus() {
    assertThat(ClusterStatuses.writtenBy(Shard.NONE, "west")).isTrue();
    assertThat(ClusterStatuses.writtenBy(Shard.NONE.by(Shard.By.CLUSTER), "west")).isTrue();
  }
}
