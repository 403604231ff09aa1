package io.kollect.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.core.Shard;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sharding flags of {@code kollect run} make a {@link Shard}, or exit 2 naming the flag. */
class ShardFlagsTest {

  @TempDir Path dir;

  private static final Function<String, OptionalInt> NO_STATEFULSETS = name -> OptionalInt.empty();

  private CliRun run(String... flags) {
    String[] args = new String[flags.length + 3];
    args[0] = "run";
    args[1] = "--kubeconfig";
    args[2] = dir.resolve("no-kubeconfig").toString();
    System.arraycopy(flags, 0, args, 3, flags.length);
    return CliRun.of(args);
  }

  @Test
  void noShardingFlagMeansOneShardThatOwnsEverything() {
    assertThat(new ShardFlags(null, null, false, null).resolve("kollect-0", NO_STATEFULSETS, false))
        .isEqualTo(Shard.NONE);
  }

  @Test
  void totalAndShardMakeThatShard() {
    assertThat(new ShardFlags(3, 1, false, null).resolve(null, NO_STATEFULSETS, false))
        .isEqualTo(new Shard(3, 1));
  }

  @Test
  void thePodNamesOrdinalIsTheShard() {
    assertThat(new ShardFlags(3, null, true, null).resolve("kollect-2", NO_STATEFULSETS, false))
        .isEqualTo(new Shard(3, 2));
    assertThat(new ShardFlags(4, null, true, null).resolve("my-kollect-set-0", NO_STATEFULSETS,
        false)).isEqualTo(new Shard(4, 0));
  }

  @Test
  void withLeaderElectionExtraReplicasStandByForTheirOrdinalModuloTheTotal() {
    assertThat(new ShardFlags(2, null, true, null).resolve("kollect-3", NO_STATEFULSETS, true))
        .isEqualTo(new Shard(2, 1));
  }

  @Test
  void withoutLeaderElectionAnOrdinalAtOrAboveTheTotalIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> new ShardFlags(2, null, true, null).resolve("kollect-2",
        NO_STATEFULSETS, false))
        .hasMessageStartingWith("--shard-from-pod-name: ordinal 2 of pod 'kollect-2' is not "
            + "below the total shards (2)")
        .hasMessageContaining("--leader-elect");
  }

  @Test
  void aPodNameWithoutAnOrdinalIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> new ShardFlags(2, null, true, null).resolve("kollect-abc",
        NO_STATEFULSETS, false))
        .hasMessage("--shard-from-pod-name: pod name 'kollect-abc' does not end in -<ordinal> "
            + "as a StatefulSet pod's does");
    assertThatThrownBy(() -> new ShardFlags(2, null, true, null).resolve(null, NO_STATEFULSETS,
        false))
        .hasMessageStartingWith("--shard-from-pod-name: no pod name (set POD_NAME");
  }

  @Test
  void theTotalComesFromTheStatefulSetsReplicas() {
    Function<String, OptionalInt> sets = name -> "kollect".equals(name)
        ? OptionalInt.of(4) : OptionalInt.empty();
    assertThat(new ShardFlags(null, null, true, "kollect").resolve("kollect-3", sets, false))
        .isEqualTo(new Shard(4, 3));
    assertThatThrownBy(() -> new ShardFlags(null, null, true, "other").resolve("kollect-3", sets,
        false))
        .hasMessage("--total-shards-from-statefulset: StatefulSet 'other' not found in the "
            + "operator's namespace");
    assertThatThrownBy(() -> new ShardFlags(null, null, true, "zero").resolve("kollect-0",
        name -> OptionalInt.of(0), false))
        .hasMessageStartingWith("--total-shards-from-statefulset: StatefulSet 'zero' has 0 "
            + "replicas");
  }

  @Test
  void aShardNotBelowTheStatefulSetsReplicasIsRefusedNamingTheFlag() {
    assertThatThrownBy(() -> new ShardFlags(null, 5, false, "kollect").resolve(null,
        name -> OptionalInt.of(3), false))
        .hasMessage("--shard: must be below the total shards (3), got 5");
  }

  @Test
  void badValuesAndCombinationsExitTwoWithOneLineNamingTheFlag() {
    Map<String, String[]> cases = Map.of(
        "kollect: --total-shards: must be at least 1, got 0\n",
        new String[] {"--total-shards", "0", "--shard", "0"},
        "kollect: --shard: must be below --total-shards (3), i.e. 0 to 2, got 3\n",
        new String[] {"--total-shards", "3", "--shard", "3"},
        "kollect: --shard: must be 0 or more, got -1\n",
        new String[] {"--total-shards", "3", "--shard", "-1"},
        "kollect: --shard, --shard-from-pod-name: give at most one of them\n",
        new String[] {"--total-shards", "3", "--shard", "1", "--shard-from-pod-name"},
        "kollect: --total-shards, --total-shards-from-statefulset: give at most one of them\n",
        new String[] {"--total-shards", "3", "--total-shards-from-statefulset", "k", "--shard",
            "1"},
        "kollect: --total-shards: needs --shard I or --shard-from-pod-name (which shard this "
            + "replica is)\n",
        new String[] {"--total-shards", "3"},
        "kollect: --shard: needs --total-shards N or --total-shards-from-statefulset NAME (how "
            + "many shards there are)\n",
        new String[] {"--shard", "1"});
    cases.forEach((expected, flags) -> {
      CliRun r = run(flags);
      assertThat(r.exitCode()).as(String.join(" ", flags)).isEqualTo(2);
      assertThat(r.err()).as(String.join(" ", flags)).isEqualTo(expected);
    });
  }

  @Test
  void shardByClusterMakesAShardSplitByClusterAndObjectIsTheDefault() {
    assertThat(new ShardFlags(3, 1, false, null, ShardFlags.rule("cluster"))
        .resolve(null, NO_STATEFULSETS, false)).isEqualTo(new Shard(3, 1, Shard.By.CLUSTER));
    assertThat(new ShardFlags(3, null, true, null, ShardFlags.rule("Cluster"))
        .resolve("kollect-2", NO_STATEFULSETS, false))
        .isEqualTo(new Shard(3, 2, Shard.By.CLUSTER));
    assertThat(ShardFlags.rule(null)).isEqualTo(Shard.By.OBJECT);
    assertThat(ShardFlags.rule("object")).isEqualTo(Shard.By.OBJECT);
  }

  @Test
  void aBadShardByValueExitsTwoWithOneLineNamingTheFlag() {
    CliRun r = run("--total-shards", "3", "--shard", "1", "--shard-by", "namespace");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("kollect: --shard-by: must be object or cluster, got "
        + "'namespace'\n");
  }

  @Test
  void aNonNumericShardIsRefusedByTheParserNamingTheFlag() {
    CliRun r = run("--total-shards", "three", "--shard", "0");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--total-shards").contains("three");
  }
}
