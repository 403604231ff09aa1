package io.kollect.export;

import static io.kollect.export.TestRecords.key;
import static io.kollect.export.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peers of a {@link FileCheckpointStore} in the shard layout: shard {@code I} in {@code
 * root/shard-I}, unsharded in {@code root}. Each reads the others' checkpoints and takes keys
 * over from them without losing what their own stores write meanwhile.
 */
class FileCheckpointPeersTest {

  static final String T = "ns/t";
  static final String S = "http";

  @TempDir Path root;

  private static Map<String, ExportedEntry> entries(String... names) {
    Map<String, ExportedEntry> out = new HashMap<>();
    for (String n : names) {
      out.put(key(n), ExportedEntry.of(record(T, n, 1)).withSequence(1L));
    }
    return out;
  }

  @Test
  void aShardReadsTheOtherShardsAndTheUnshardedStoreButNotItself() {
    FileCheckpointStore unsharded = FileCheckpointStore.inShardLayout(root);
    FileCheckpointStore s0 = FileCheckpointStore.inShardLayout(root, 0);
    FileCheckpointStore s1 = FileCheckpointStore.inShardLayout(root, 1);
    unsharded.apply(T, S, entries("a", "b"), Set.of());
    s0.apply(T, S, entries("c"), Set.of());
    s1.apply(T, S, entries("d"), Set.of());
    s0.apply("ns/other", S, entries("x"), Set.of());

    assertThat(s1.loadPeers(T, S)).extracting(Map::keySet).containsExactlyInAnyOrder(
        Set.of(key("a"), key("b")), Set.of(key("c")));
    // the unsharded store's peers are the shards (an operator that ran sharded before)
    assertThat(unsharded.loadPeers(T, S)).extracting(Map::keySet).containsExactlyInAnyOrder(
        Set.of(key("c")), Set.of(key("d")));
    // a store made with the plain constructor has none
    assertThat(new FileCheckpointStore(root.resolve("shard-1")).loadPeers(T, S)).isEmpty();
    assertThat(s1.loadPeers(T, "other-sink")).isEmpty();
  }

  @Test
  void takingKeysOverRemovesExactlyThoseFromEveryPeerAndLeavesTheRest() {
    FileCheckpointStore unsharded = FileCheckpointStore.inShardLayout(root);
    FileCheckpointStore s0 = FileCheckpointStore.inShardLayout(root, 0);
    FileCheckpointStore s2 = FileCheckpointStore.inShardLayout(root, 2);
    unsharded.apply(T, S, entries("a", "b"), Set.of());
    s0.apply(T, S, entries("a", "c", "d"), Set.of());

    s2.takeOver(T, S, Set.of(key("a"), key("c"), key("z")));

    assertThat(FileCheckpointStore.inShardLayout(root).load(T, S).keySet())
        .containsExactly(key("b"));
    assertThat(FileCheckpointStore.inShardLayout(root, 0).load(T, S).keySet())
        .containsExactly(key("d"));
    // nothing was created for a shard that had no checkpoint of (T, S)
    assertThat(s2.load(T, S)).isEmpty();
    assertThat(Files.exists(s0.file("other", S))).isFalse();
  }

  @Test
  void aRunningPeerThatAppendsAfterAKeyWasTakenOverKeepsTheRemovalInsteadOfCuttingItAsTorn() {
    FileCheckpointStore s0 = FileCheckpointStore.inShardLayout(root, 0);
    s0.apply(T, S, entries("a", "b"), Set.of()); // s0 now knows its log's length
    FileCheckpointStore.inShardLayout(root, 1).takeOver(T, S, Set.of(key("a")));
    s0.apply(T, S, entries("c"), Set.of());

    assertThat(FileCheckpointStore.inShardLayout(root, 0).load(T, S).keySet())
        .containsExactlyInAnyOrder(key("b"), key("c"));
  }

  @Test
  void aPeersCompactionKeepsARemovalAppendedBeforeIt() throws Exception {
    FileCheckpointStore s0 = FileCheckpointStore.inShardLayout(root, 0);
    Map<String, ExportedEntry> many = new HashMap<>();
    for (int i = 0; i < 400; i++) {
      many.putAll(entries("obj-" + i));
    }
    s0.save(T, S, many);
    FileCheckpointStore.inShardLayout(root, 1).takeOver(T, S, Set.of(key("obj-7")));
    // grow the log past the snapshot until s0 compacts (which empties the log)
    Map<String, ExportedEntry> again = new HashMap<>(many);
    again.remove(key("obj-7"));
    boolean compacted = false;
    for (int i = 0; i < 5 && !compacted; i++) {
      s0.apply(T, S, again, Set.of());
      compacted = Files.size(CheckpointDirectory.logFile(s0.file(T, S))) == 0;
    }
    assertThat(compacted).isTrue();
    Map<String, ExportedEntry> loaded = FileCheckpointStore.inShardLayout(root, 0).load(T, S);
    assertThat(loaded).hasSize(399).doesNotContainKey(key("obj-7"));
  }

  @Test
  void concurrentAppendsOfAShardAndTakeOversOfItsKeysByAnotherStoreLoseNothing()
      throws Exception {
    FileCheckpointStore s0 = FileCheckpointStore.inShardLayout(root, 0);
    FileCheckpointStore s1 = FileCheckpointStore.inShardLayout(root, 1);
    int n = 200;
    for (int i = 0; i < n; i++) {
      s0.apply(T, S, entries("taken-" + i), Set.of());
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    try {
      Future<?> writer = pool.submit(() -> {
        go.await();
        for (int i = 0; i < n; i++) {
          s0.apply(T, S, entries("kept-" + i), Set.of());
        }
        return null;
      });
      Future<?> taker = pool.submit(() -> {
        go.await();
        for (int i = 0; i < n; i++) {
          s1.takeOver(T, S, Set.of(key("taken-" + i)));
        }
        return null;
      });
      go.countDown();
      writer.get(60, TimeUnit.SECONDS);
      taker.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    Map<String, ExportedEntry> loaded = FileCheckpointStore.inShardLayout(root, 0).load(T, S);
    assertThat(loaded.keySet()).hasSize(n).allMatch(k -> k.contains("kept-"));
    assertThat(List.copyOf(s1.loadPeers(T, S))).hasSize(1);
  }
}
