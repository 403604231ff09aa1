package io.kollect.core.lifecycle;

import io.kollect.extract.ProfileSpec;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link ProfileHistory} in memory: the embedder's store, and the fake of unit tests. Each spec or
 * state write bumps the profile's version, as a resourceVersion would.
 */
public final class InMemoryProfileHistory implements ProfileHistory {

  private record Entry(ProfileSpec spec, ProfileState state, long version) {}

  private final Map<String, Entry> profiles = new ConcurrentHashMap<>();
  private final Map<String, Map<String, ProfileRevision>> revisions = new ConcurrentHashMap<>();

  InMemoryProfileHistory() {}

  /** Creates the profile, or replaces its spec (keeping its state). */
  public void putSpec(String profile, ProfileSpec spec) {
    profiles.merge(profile, new Entry(spec, ProfileState.initial(), 1),
        (old, fresh) -> new Entry(spec, old.state(), old.version() + 1));
  }

  /** Forgets the profile and its revisions. */
  public void remove(String profile) {
    profiles.remove(profile);
    revisions.remove(profile);
  }

  @Override
  public Optional<Snapshot> read(String profile) {
    Entry e = profiles.get(profile);
    return e == null ? Optional.empty()
        : Optional.of(new Snapshot(e.spec(), e.state(), Long.toString(e.version())));
  }

  @Override
  public boolean writeState(String profile, String version, ProfileState state) {
    boolean[] written = new boolean[1];
    Entry after = profiles.computeIfPresent(profile, (k, old) -> {
      if (!Long.toString(old.version()).equals(version)) {
        return old;
      }
      written[0] = true;
      return new Entry(old.spec(), state, old.version() + 1);
    });
    if (after == null) {
      throw new NoSuchElementException("profile " + profile + " does not exist");
    }
    return written[0];
  }

  @Override
  public void writeSpec(String profile, ProfileSpec spec) {
    if (profiles.computeIfPresent(profile,
        (k, old) -> new Entry(spec, old.state(), old.version() + 1)) == null) {
      throw new NoSuchElementException("profile " + profile + " does not exist");
    }
  }

  @Override
  public void saveRevision(ProfileRevision revision) {
    revisions.computeIfAbsent(revision.profile(), k -> new ConcurrentHashMap<>())
        .putIfAbsent(revision.name(), revision);
  }

  @Override
  public Optional<ProfileRevision> revision(String profile, String name) {
    return Optional.ofNullable(revisions.getOrDefault(profile, Map.of()).get(name));
  }

  @Override
  public List<String> revisions(String profile) {
    return List.copyOf(new TreeMap<>(revisions.getOrDefault(profile, Map.of())).keySet());
  }

  @Override
  public void deleteRevision(String profile, String name) {
    Map<String, ProfileRevision> m = revisions.get(profile);
    if (m != null) {
      m.remove(name);
    }
  }
}
