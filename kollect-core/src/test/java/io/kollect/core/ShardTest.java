package io.kollect.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kollect.informers.ObjectOwnership;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardTest {

  @Test
  void fnv1a64MatchesTheReferenceVectors() {
    // vectors from the FNV reference test suite (Fowler/Noll/Vo, test_fnv.c)
    assertThat(Long.toHexString(Shard.fnv1a64(""))).isEqualTo("cbf29ce484222325");
    assertThat(Long.toHexString(Shard.fnv1a64("a"))).isEqualTo("af63dc4c8601ec8c");
    assertThat(Long.toHexString(Shard.fnv1a64("b"))).isEqualTo("af63df4c8601f1a5");
    assertThat(Long.toHexString(Shard.fnv1a64("foobar"))).isEqualTo("85944171f73967e8");
  }

  @Test
  void hashesTheUtf8BytesNotTheChars() {
    // "é" is two UTF-8 bytes (c3 a9): hashing them one by one gives the same value
    long expected = 0xcbf29ce484222325L;
    for (int b : new int[] {0xc3, 0xa9}) {
      expected ^= b;
      expected *= 0x100000001b3L;
    }
    assertThat(Shard.fnv1a64("é")).isEqualTo(expected);
  }

  @Test
  void ownershipIsTheUnsignedHashOfTheIdentityModuloTotal() {
    String identity = "prod/apps/Deployment/shop/web";
    long h = Shard.fnv1a64(identity);
    int owner = (int) Long.remainderUnsigned(h, 7);
    for (int i = 0; i < 7; i++) {
      assertThat(new Shard(7, i).owns("prod", "apps", "Deployment", "shop", "web"))
          .isEqualTo(i == owner);
    }
  }

  @Test
  void aHashWithTheTopBitSetIsReadUnsigned() {
    // "a" hashes to af63…, negative as a signed long: a signed remainder would be negative
    assertThat(Shard.fnv1a64("a")).isNegative();
    // find an identity with a negative hash and check its owner is the unsigned remainder
    String ns = null;
    for (int i = 0; ns == null; i++) {
      if (Shard.hash("c", "", "ConfigMap", "n" + i, "x") < 0) {
        ns = "n" + i;
      }
    }
    long h = Shard.hash("c", "", "ConfigMap", ns, "x");
    int owner = (int) Long.remainderUnsigned(h, 3);
    assertThat(new Shard(3, owner).owns("c", "", "ConfigMap", ns, "x")).isTrue();
  }

  @Test
  void coreGroupAndClusterScopedObjectsHashWithEmptySegments() {
    assertThat(Shard.hash("c", null, "Namespace", null, "default"))
        .isEqualTo(Shard.fnv1a64("c//Namespace//default"));
    assertThat(Shard.hash("c", "", "ConfigMap", "ns", "cm"))
        .isEqualTo(Shard.fnv1a64("c//ConfigMap/ns/cm"));
  }

  @Test
  void everyObjectHasExactlyOneOwnerAndTheSplitIsEven() {
    int total = 4;
    int n = 40_000;
    int[] counts = new int[total];
    for (int i = 0; i < n; i++) {
      int owners = 0;
      for (int s = 0; s < total; s++) {
        if (new Shard(total, s).owns("prod-eu-1", "", "ConfigMap", "ns-" + (i % 97), "cm-" + i)) {
          owners++;
          counts[s]++;
        }
      }
      assertThat(owners).isEqualTo(1);
    }
    // a fair split puts n/total = 10,000 on each; 5% is over 10 standard deviations (~87)
    for (int c : counts) {
      assertThat(c).isBetween(9_500, 10_500);
    }
  }

  /**
   * Documents a property of the hash the contract fixes (docs/architecture.md, Sharding): XOR
   * with a byte then multiplication by an odd prime keep the lowest bit the parity of the odd
   * bytes, so with two shards the owner depends on nothing else.
   */
  @Test
  void moduloTwoIsTheParityOfTheOddBytes() {
    String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789/-.";
    java.util.Random random = new java.util.Random(15);
    for (int i = 0; i < 1_000; i++) {
      StringBuilder sb = new StringBuilder();
      for (int n = 1 + random.nextInt(40); n > 0; n--) {
        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      long oddBytes = sb.chars().filter(c -> (c & 1) == 1).count(); // ASCII: one byte per char
      assertThat(Long.remainderUnsigned(Shard.fnv1a64(sb.toString()), 2))
          .isEqualTo(1 ^ (oddBytes & 1));
    }
  }

  @Test
  void theSingleShardOwnsEverything() {
    assertThat(Shard.NONE.sharded()).isFalse();
    assertThat(Shard.NONE.owns("c", "apps", "Deployment", "ns", "x")).isTrue();
    assertThat(new Shard(1, 0)).isEqualTo(Shard.NONE);
  }

  @Test
  void aCheckpointedRecordIsOwnedByTheShardOfItsExportTargetsCluster() {
    Shard shard = new Shard(3, 1);
    String record = "apps/Deployment/shop/web";
    // the engine's own cluster's units export under ns/name, another cluster's under cluster/ns/name
    assertThat(shard.ownsRecord("home", "kollect/t", record))
        .isEqualTo(shard.owns("home", "apps", "Deployment", "shop", "web"));
    assertThat(shard.ownsRecord("home", "west/kollect/t", record))
        .isEqualTo(shard.owns("west", "apps", "Deployment", "shop", "web"));
    assertThat(shard.ownsRecord("home", "kollect/t", "/Namespace//shop"))
        .isEqualTo(shard.owns("home", "", "Namespace", "", "shop"));
    // a key this engine never writes is kept rather than guessed at
    assertThat(shard.ownsRecord("home", "kollect/t", "not-a-record-key")).isTrue();
    assertThat(Shard.NONE.ownsRecord("home", "kollect/t", record)).isTrue();
  }

  @Test
  void byClusterEveryObjectOfARemoteClusterBelongsToTheShardOfTheClustersName() {
    int total = 4;
    int owner = (int) Long.remainderUnsigned(Shard.fnv1a64("west"), total);
    for (int s = 0; s < total; s++) {
      Shard shard = new Shard(total, s, Shard.By.CLUSTER);
      assertThat(shard.ownsCluster("west")).isEqualTo(s == owner);
      assertThat(shard.reads("home", "west")).isEqualTo(s == owner);
      for (int i = 0; i < 200; i++) {
        assertThat(shard.owns("home", "west", "", "ConfigMap", "ns-" + (i % 7), "cm-" + i))
            .isEqualTo(s == owner);
      }
    }
  }

  @Test
  void byClusterTheLocalClustersObjectsKeepTheObjectHashAndEveryShardReadsIt() {
    int total = 3;
    for (int i = 0; i < 300; i++) {
      int owners = 0;
      for (int s = 0; s < total; s++) {
        Shard byCluster = new Shard(total, s, Shard.By.CLUSTER);
        Shard byObject = new Shard(total, s);
        boolean owns = byCluster.owns("home", "home", "apps", "Deployment", "shop", "d-" + i);
        assertThat(owns).isEqualTo(byObject.owns("home", "apps", "Deployment", "shop", "d-" + i));
        assertThat(byCluster.reads("home", "home")).isTrue();
        owners += owns ? 1 : 0;
      }
      assertThat(owners).isEqualTo(1);
    }
  }

  @Test
  void byObjectEveryShardReadsEveryClusterAndARemoteObjectIsHashedWithItsCluster() {
    Shard shard = new Shard(3, 1);
    assertThat(shard.by()).isEqualTo(Shard.By.OBJECT);
    assertThat(shard.reads("home", "west")).isTrue();
    assertThat(shard.owns("home", "west", "apps", "Deployment", "shop", "web"))
        .isEqualTo(shard.owns("west", "apps", "Deployment", "shop", "web"));
  }

  @Test
  void theInformersOwnershipIsTheSameRuleAndOwnsOnlyAnOwnedRemoteClusterWhole() {
    int total = 2;
    for (int s = 0; s < total; s++) {
      Shard shard = new Shard(total, s, Shard.By.CLUSTER);
      var ownership = shard.ownership("home");
      for (String cluster : List.of("home", "west", "east", "north")) {
        assertThat(ownership.ownsWhole(cluster))
            .isEqualTo(!cluster.equals("home") && shard.ownsCluster(cluster));
        for (int i = 0; i < 50; i++) {
          assertThat(ownership.owns(cluster, "", "ConfigMap", "ns", "cm-" + i))
              .isEqualTo(shard.owns("home", cluster, "", "ConfigMap", "ns", "cm-" + i));
        }
      }
      assertThat(new Shard(total, s).ownership("home").ownsWhole("west")).isFalse();
    }
    assertThat(Shard.NONE.ownership("home")).isSameAs(ObjectOwnership.ALL);
  }

  @Test
  void byClusterACheckpointedRecordOfARemoteClusterMovesWithTheCluster() {
    String record = "apps/Deployment/shop/web";
    for (int s = 0; s < 3; s++) {
      Shard shard = new Shard(3, s, Shard.By.CLUSTER);
      assertThat(shard.ownsRecord("home", "west/kollect/t", record))
          .isEqualTo(shard.ownsCluster("west"));
      assertThat(shard.ownsRecord("home", "kollect/t", record))
          .isEqualTo(shard.owns("home", "apps", "Deployment", "shop", "web"));
    }
  }

  @Test
  void theRuleIsPartOfTheShardsValueAndName() {
    assertThat(new Shard(2, 1, Shard.By.OBJECT)).isEqualTo(new Shard(2, 1));
    assertThat(new Shard(2, 1).by(Shard.By.CLUSTER)).isEqualTo(new Shard(2, 1, Shard.By.CLUSTER))
        .isNotEqualTo(new Shard(2, 1));
    assertThat(new Shard(2, 1, Shard.By.CLUSTER)).hasToString("1/2 by cluster");
    assertThat(new Shard(2, 1)).hasToString("1/2");
  }

  @Test
  void invalidShardsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> new Shard(0, 0)).hasMessageStartingWith("total:");
    assertThatThrownBy(() -> new Shard(3, 3)).hasMessageStartingWith("index:")
        .hasMessageContaining("got 3");
    assertThatThrownBy(() -> new Shard(3, -1)).hasMessageStartingWith("index:");
  }
}
