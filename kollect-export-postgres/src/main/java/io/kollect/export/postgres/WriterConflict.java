package io.kollect.export.postgres;

import java.time.Instant;

/**
 * Another live writer of a cluster name this sink writes, with a different writer identity: two
 * source clusters carry the same cluster name, so their rows overwrite each other in the tables.
 * Give each source cluster its own cluster name.
 *
 * @param cluster the cluster name both write
 * @param identity the other writer's identity ({@link PostgresSinkConfig#writerIdentity()})
 * @param instance the other writer's instance (host and a random id)
 * @param lastSeen when the other writer last refreshed its row (database clock)
 */
public record WriterConflict(String cluster, String identity, String instance, Instant lastSeen) {

  /** One line for a person. */
  public String describe() {
    return "cluster name " + cluster + " is also written by " + instance + " (writer identity "
        + identity + ", seen " + lastSeen + "): give each source cluster its own cluster name";
  }
}
