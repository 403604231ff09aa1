package io.kollect.core;

import io.kollect.export.Exporter;
import io.kollect.export.Sink;
import io.kollect.export.SinkOptions;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.ProfileSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The profiles and sinks an engine was given: each profile compiled once when it is put (an
 * invalid one keeps its last valid version), each sink registered with the exporter. Answers
 * only "what is configured"; which targets a change concerns is the caller's ({@link
 * TargetIndex}).
 */
final class EngineCatalog {

  private record ConfiguredSink(Sink sink, SinkOptions options) {}

  private final ConcurrentHashMap<String, ProfileVersion> profiles = new ConcurrentHashMap<>();
  private final Map<String, ConfiguredSink> sinks = new ConcurrentHashMap<>();
  private final Exporter exporter;
  private final ExtractOptions extractOptions;
  /** Sink names that are the engine's own (its inventory view, the host's inventory sink). */
  private final Set<String> reserved;

  EngineCatalog(Exporter exporter, ExtractOptions extractOptions, Set<String> reserved) {
    this.exporter = exporter;
    this.extractOptions = extractOptions;
    this.reserved = Set.copyOf(reserved);
  }

  /** Puts the profile; returns its new version, or {@code null} when the spec did not change. */
  ProfileVersion putProfile(String name, ProfileSpec spec) {
    ProfileVersion[] changed = new ProfileVersion[1];
    profiles.compute(name, (k, old) -> {
      if (old != null && old.spec().equals(spec)) {
        return old;
      }
      changed[0] = ProfileVersion.compile(name, spec, old, extractOptions);
      return changed[0];
    });
    return changed[0];
  }

  /** Removes the profile; returns whether there was one. */
  boolean removeProfile(String name) {
    return profiles.remove(name) != null;
  }

  ProfileVersion profile(String name) {
    return profiles.get(name);
  }

  Optional<String> profileError(String name) {
    ProfileVersion p = profiles.get(name);
    return p == null ? Optional.empty() : Optional.ofNullable(p.error());
  }

  List<String> profileWarnings(String name) {
    ProfileVersion p = profiles.get(name);
    return p == null || p.error() != null || p.compiled() == null ? List.of()
        : p.compiled().warnings();
  }

  /**
   * Adds or replaces the sink; returns whether anything changed (the configured instance with
   * equal options changes nothing).
   *
   * @throws IllegalArgumentException for a reserved name, or the configured instance with other
   *     options (replacing it would close the instance that is to be used)
   */
  boolean putSink(Sink sink, SinkOptions options) {
    String name = sink.name();
    if (reserved.contains(name)) {
      throw new IllegalArgumentException("sink name: " + name + " is reserved (the engine's "
          + "inventory)");
    }
    synchronized (sinks) {
      ConfiguredSink current = sinks.get(name);
      if (current != null && current.sink() == sink) {
        if (current.options().equals(options)) {
          return false;
        }
        throw new IllegalArgumentException("sink " + name + ": to change its options pass a new "
            + "sink instance (the replaced instance is closed)");
      }
      exporter.addSink(sink, options);
      sinks.put(name, new ConfiguredSink(sink, options));
      return true;
    }
  }

  /** Removes and closes the sink; returns whether there was one. */
  boolean removeSink(String name) {
    synchronized (sinks) {
      if (sinks.remove(name) == null) {
        return false;
      }
      exporter.removeSink(name);
      return true;
    }
  }

  boolean sinkConfigured(String name) {
    return sinks.containsKey(name);
  }
}
