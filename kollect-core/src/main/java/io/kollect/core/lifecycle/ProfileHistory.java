package io.kollect.core.lifecycle;

import io.kollect.extract.ProfileSpec;
import java.util.List;
import java.util.Optional;

/**
 * Where a profile's spec, its revisions and its lifecycle state are kept: the store SPI of {@link
 * ProfileExperiments}. The operator keeps revisions as ControllerRevisions and the state in the
 * KollectProfile's status; {@link #inMemory()} keeps everything in memory for an embedder.
 *
 * <p>The state is written with compare-and-set against the {@link Snapshot#version()} it was read
 * at, so that two writers (the operator's reconcile and a CLI) never lose each other's change: the
 * loser reads again and decides again.
 */
public interface ProfileHistory {

  /**
   * A profile as stored.
   *
   * @param spec its spec now
   * @param state its lifecycle state
   * @param version an opaque version of both, for {@link #writeState}
   */
  record Snapshot(ProfileSpec spec, ProfileState state, String version) {}

  /** The profile now, or empty when it does not exist. */
  Optional<Snapshot> read(String profile);

  /**
   * Stores {@code state} when the profile is still at {@code version}.
   *
   * @return whether it was stored; {@code false} when the profile changed since (read again)
   * @throws java.util.NoSuchElementException when the profile does not exist
   */
  boolean writeState(String profile, String version, ProfileState state);

  /**
   * Replaces the profile's spec (an experiment's candidate, or the baseline restored).
   *
   * @throws java.util.NoSuchElementException when the profile does not exist
   */
  void writeSpec(String profile, ProfileSpec spec);

  /** Stores a revision; storing one that exists does nothing. */
  void saveRevision(ProfileRevision revision);

  /** A stored revision of the profile. */
  Optional<ProfileRevision> revision(String profile, String name);

  /** The names of the profile's stored revisions. */
  List<String> revisions(String profile);

  /** Deletes a stored revision (nothing when it does not exist). */
  void deleteRevision(String profile, String name);

  /** A thread-safe store in memory, empty. */
  static InMemoryProfileHistory inMemory() {
    return new InMemoryProfileHistory();
  }
}
