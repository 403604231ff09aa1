package io.kollect.core;

/**
 * A part of a target's scope that is not being read.
 *
 * @param resource the resource type, as {@code apiVersion/Kind}
 * @param namespace the namespace, or {@code "*"} for cluster-wide
 * @param reason {@code forbidden} or {@code notServed}
 * @param message detail
 */
public record SkippedScope(String resource, String namespace, String reason, String message) {}
