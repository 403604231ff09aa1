package io.kollect.informers;

import java.time.Instant;

/**
 * A watch of the registry that is dead or silent past the liveness window (see
 * {@link InformerOptions#watchLiveness()}), for readiness checks and status.
 *
 * @param type the watched type
 * @param namespace the watched namespace, or {@code "*"} for the cluster-wide watch
 * @param silentSince when the watch last showed it was alive (a response or an event)
 * @param reason why it is not delivering
 */
public record StalledWatch(ResourceType type, String namespace, Instant silentSince, String reason) {}
