package io.kollect.export;

import java.time.Instant;

/**
 * What the exporter reports, per sink, for a host to bind to its metrics system. Calls are cheap
 * and made on delivery threads; implementations must not block.
 */
public interface ExportMetrics {

  void sent(String sink, int records);

  void failed(String sink, int records, boolean permanent);

  void retried(String sink, int records);

  /** Records dropped without delivery (a permanent rejection). */
  void dropped(String sink, int records);

  /** Pending (coalesced) records waiting for the sink. */
  void queueDepth(String sink, int depth);

  void lastSuccess(String sink, Instant when);

  /** Reports nothing. */
  static ExportMetrics noop() {
    return new ExportMetrics() {
      @Override
      public void sent(String sink, int records) {}

      @Override
      public void failed(String sink, int records, boolean permanent) {}

      @Override
      public void retried(String sink, int records) {}

      @Override
      public void dropped(String sink, int records) {}

      @Override
      public void queueDepth(String sink, int depth) {}

      @Override
      public void lastSuccess(String sink, Instant when) {}
    };
  }
}
