package io.kollect.core;

/**
 * An object in a target's scope that yields no record because extraction failed (e.g. a corrupt
 * Helm release). The message names what is wrong, never a value.
 *
 * @param resource the resource type, as {@code apiVersion/Kind}
 * @param namespace the object's namespace, or {@code null} when cluster-scoped
 * @param name the object's name
 * @param message why it cannot be extracted
 */
public record ExtractionError(String resource, String namespace, String name, String message) {}
