package io.kollect.operator.profile;

import io.kollect.core.lifecycle.ProfileHistory;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.ProfileSpec;
import java.util.List;
import java.util.Optional;

/** A {@link ProfileHistory} that delegates everything; a test overrides the call it delays. */
class ProfileExperimentsTestHistory implements ProfileHistory {
  private final ProfileHistory delegate;

  ProfileExperimentsTestHistory(ProfileHistory delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<Snapshot> read(String profile) {
    return delegate.read(profile);
  }

  @Override
  public boolean writeState(String profile, String version, ProfileState state) {
    return delegate.writeState(profile, version, state);
  }

  @Override
  public void writeSpec(String profile, ProfileSpec spec) {
    delegate.writeSpec(profile, spec);
  }

  @Override
  public void saveRevision(ProfileRevision revision) {
    delegate.saveRevision(revision);
  }

  @Override
  public Optional<ProfileRevision> revision(String profile, String name) {
    return delegate.revision(profile, name);
  }

  @Override
  public List<String> revisions(String profile) {
    return delegate.revisions(profile);
  }

  @Override
  public void deleteRevision(String profile, String name) {
    delegate.deleteRevision(profile, name);
  }
}
