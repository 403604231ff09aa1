package io.kollect.operator.shard;

import static io.kollect.operator.shard.ShardedConfigMaps.APPS;
import static io.kollect.operator.shard.ShardedConfigMaps.owner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kollect.core.Shard;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.testing.TestPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shards writing one PostgreSQL database: two shards write the ConfigMaps of {@value
 * ShardedConfigMaps#APPS} into one postgres KollectSink and stop; while no operator runs,
 * objects are deleted (one that moves to the new shard 2, one that moves between the old
 * indexes), changed and created; then three shards start and the objects churn while they run.
 * The view {@code objects} ends with exactly the cluster's objects: each shard writes only the
 * keys it owns, a deleted object's DELETE comes from its new owner, and a state written by an old
 * owner never wins over a newer one (the sequence decides).
 */
class PostgresShardsIT {

  private static final String NS = "handover-pg";
  private static final int OBJECTS = 30;
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  @RegisterExtension
  static final ShardedConfigMaps world = new ShardedConfigMaps(NS, OBJECTS, false);
  private static TestCluster cluster;
  private static TestPostgresServer db;

  @BeforeAll
  static void start() throws Exception {
    db = TestPostgresServer.start();
    cluster = world.cluster();
    cluster.apply("""
        apiVersion: v1
        kind: Secret
        metadata: {name: pg, namespace: %1$s}
        stringData: {username: %3$s, password: %4$s}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: pg, namespace: %1$s}
        spec:
          type: postgres
          postgres: {url: %2$s, credentialsSecretRef: {name: pg}}
        ---
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata: {name: t, namespace: %1$s}
        spec:
          profileRef: configmaps
          scope: {namespaces: [%5$s]}
          sinkRefs: [pg]
        """.formatted(NS, db.jdbcUrl(), db.superuser(), db.superuserPassword(), APPS));
  }

  @AfterAll
  static void stop() {
    world.stopShards();
    if (db != null) {
      db.close();
    }
  }

  private static void startShard(Shard shard) {
    world.startShard(shard, o -> o);
  }

  /** The view {@code objects}: name to field {@code v}, for the target's ConfigMaps. */
  private static Map<String, String> table() {
    Map<String, String> out = new HashMap<>();
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT name, fields->>'v' FROM kollect.objects"
            + " WHERE target = '" + NS + "/t' AND namespace = '" + APPS + "'")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    } catch (SQLException e) {
      // the schema is created by the first shard that checks the database
      return Map.of("(no table yet)", e.getMessage());
    }
    return out;
  }

  @Test
  void twoShardsThenThreeWriteOneDatabaseThatEndsEqualToTheCluster() {
    startShard(new Shard(2, 0));
    startShard(new Shard(2, 1));
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(table()).isEqualTo(world.clusterState()));
    world.stopShards();

    List<String> names = new ArrayList<>(world.clusterState().keySet());
    names.sort(null);
    String toNewShard = names.stream().filter(n -> owner(3, n) == 2).findFirst().orElseThrow();
    String betweenOld = names.stream()
        .filter(n -> owner(3, n) < 2 && owner(3, n) != owner(2, n)).findFirst().orElseThrow();
    String changed = names.stream().filter(n -> owner(3, n) == 2 && !n.equals(toNewShard))
        .findFirst().orElseThrow();
    cluster.client().configMaps().inNamespace(APPS).withName(toNewShard).delete();
    cluster.client().configMaps().inNamespace(APPS).withName(betweenOld).delete();
    world.configMap(changed, "changed");
    world.configMap("cm-created", "new");
    await().atMost(CONVERGE).until(() -> !world.clusterState().containsKey(toNewShard)
        && !world.clusterState().containsKey(betweenOld));

    startShard(new Shard(3, 0));
    startShard(new Shard(3, 1));
    startShard(new Shard(3, 2));
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(table()).isEqualTo(world.clusterState()));
    assertThat(table()).doesNotContainKeys(toNewShard, betweenOld)
        .containsEntry(changed, "changed").containsEntry("cm-created", "new");

    // and while the three run: churn with deletes and re-creates
    Random random = new Random(3);
    for (int i = 0; i < 60; i++) {
      String name = "cm-" + random.nextInt(OBJECTS + 5);
      if (random.nextInt(4) == 0) {
        cluster.client().configMaps().inNamespace(APPS).withName(name).delete();
      } else {
        world.configMap(name, "churn-" + i);
      }
    }
    await().atMost(CONVERGE)
        .untilAsserted(() -> assertThat(table()).isEqualTo(world.clusterState()));
  }
}
