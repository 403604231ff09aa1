package io.kollect.export;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A {@link CheckpointStore} that forwards every call to another one; a wrapper overrides only
 * what it changes. Forwarding is explicit for every method, the defaulted ones too: a wrapper that
 * implemented {@code CheckpointStore} itself would silently get the interface's defaults for
 * them, so {@link #apply} would turn the wrapped store's append-only log back into full rewrites
 * and {@link #loadPeers} would hide the other shards' checkpoints.
 */
public abstract class ForwardingCheckpointStore implements CheckpointStore {

  private final CheckpointStore delegate;

  protected ForwardingCheckpointStore(CheckpointStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The wrapped store. */
  protected final CheckpointStore delegate() {
    return delegate;
  }

  @Override
  public Map<String, ExportedEntry> load(String target, String sink) {
    return delegate.load(target, sink);
  }

  @Override
  public void save(String target, String sink, Map<String, ExportedEntry> entries) {
    delegate.save(target, sink, entries);
  }

  @Override
  public void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed) {
    delegate.apply(target, sink, changed, removed);
  }

  @Override
  public void apply(String target, String sink, Map<String, ExportedEntry> changed,
      Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
    delegate.apply(target, sink, changed, removed, state);
  }

  @Override
  public void delete(String target, String sink) {
    delegate.delete(target, sink);
  }

  @Override
  public List<Map<String, ExportedEntry>> loadPeers(String target, String sink) {
    return delegate.loadPeers(target, sink);
  }

  @Override
  public void takeOver(String target, String sink, Set<String> keys) {
    delegate.takeOver(target, sink, keys);
  }
}
