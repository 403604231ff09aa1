package io.kollect.operator.crd;

/**
 * A part of a target's scope that is not being read.
 *
 * @param resource {@code apiVersion/Kind}
 * @param namespace namespace, or {@code *} for cluster-wide
 * @param reason {@code forbidden} or {@code notServed}
 * @param message detail
 */
public record SkippedEntry(String resource, String namespace, String reason, String message) {}
