package io.kollect.informers;

/**
 * What the registry reports, for a host to bind to its metrics system. Calls are made on informer
 * threads and must not block.
 */
public interface InformerMetrics {

  /** An informer started (+1) or stopped (-1). */
  void informers(int delta);

  /** Cached object count of a type changed to {@code count}. */
  void cachedObjects(ResourceType type, long count);

  void event(ResourceType type, ResourceEvent.Kind kind);

  void listWatchError(ResourceType type);

  void watchRestart(ResourceType type);

  static InformerMetrics noop() {
    return new InformerMetrics() {
      @Override
      public void informers(int delta) {}

      @Override
      public void cachedObjects(ResourceType type, long count) {}

      @Override
      public void event(ResourceType type, ResourceEvent.Kind kind) {}

      @Override
      public void listWatchError(ResourceType type) {}

      @Override
      public void watchRestart(ResourceType type) {}
    };
  }
}
