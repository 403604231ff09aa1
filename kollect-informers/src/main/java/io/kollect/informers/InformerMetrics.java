package io.kollect.informers;

/**
 * What the registry reports, for a host to bind to its metrics system. Calls are made on informer
 * threads and must not block.
 */
public interface InformerMetrics {

  /** The API server ended a watch at the end of its liveness window, as asked (normal, once per window). */
  String RESTART_TIMEOUT = "timeout";
  /** The API server or the network closed a watch before its window ended. */
  String RESTART_CLOSED = "closed";
  /** A watch failed: connection error or an error answer from the API server. */
  String RESTART_ERROR = "error";
  /** The watch's resourceVersion is too old (HTTP 410): the informer relists. */
  String RESTART_GONE = "gone";
  /** The client gave up on a watch that stayed silent past its liveness window. */
  String RESTART_LIVENESS = "liveness";

  /** An informer started (+1) or stopped (-1). */
  void informers(int delta);

  /** Cached object count of a type changed to {@code count}. */
  void cachedObjects(ResourceType type, long count);

  void event(ResourceType type, ResourceEvent.Kind kind);

  void listWatchError(ResourceType type);

  /**
   * An established watch was lost and is being replaced: every {@link #watchRestarted} except
   * the normal {@link #RESTART_TIMEOUT} end of a window.
   */
  void watchRestart(ResourceType type);

  /**
   * A watch of {@code type} ended and is being re-opened, for {@code reason}: one of
   * {@link #RESTART_TIMEOUT}, {@link #RESTART_CLOSED}, {@link #RESTART_ERROR},
   * {@link #RESTART_GONE}, {@link #RESTART_LIVENESS}.
   */
  default void watchRestarted(ResourceType type, String reason) {}

  /** Watches of the registry's cluster that are answered and streaming now (checked every second). */
  default void openWatches(int count) {}

  /**
   * The metrics of one cluster's registry: a host that serves several clusters returns a view
   * that tags every meter with {@code cluster}; the engine asks for it once per cluster it opens.
   * The default reports untagged, as a single-cluster host does.
   */
  default InformerMetrics forCluster(String cluster) {
    return this;
  }

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
