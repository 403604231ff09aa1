package io.kollect.export;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shields delivery from a throwing {@link ExportMetrics}: a metrics bug must neither kill a
 * delivery thread nor make a delivered batch look failed (and be sent again). Logged once.
 */
final class SafeMetrics implements ExportMetrics {

  private static final Logger LOG = LoggerFactory.getLogger(SafeMetrics.class);

  private final ExportMetrics delegate;
  private final AtomicBoolean warned = new AtomicBoolean();

  SafeMetrics(ExportMetrics delegate) {
    this.delegate = delegate;
  }

  private void failed(RuntimeException e) {
    if (warned.compareAndSet(false, true)) {
      LOG.warn("export metrics implementation {} threw; ignoring (logged once)",
          delegate.getClass().getName(), e);
    }
  }

  @Override
  public void sent(String sink, int records) {
    try {
      delegate.sent(sink, records);
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  @Override
  public void failed(String sink, int records, boolean permanent) {
    try {
      delegate.failed(sink, records, permanent);
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  @Override
  public void retried(String sink, int records) {
    try {
      delegate.retried(sink, records);
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  @Override
  public void dropped(String sink, int records) {
    try {
      delegate.dropped(sink, records);
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  @Override
  public void queueDepth(String sink, int depth) {
    try {
      delegate.queueDepth(sink, depth);
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  @Override
  public void lastSuccess(String sink, Instant when) {
    try {
      delegate.lastSuccess(sink, when);
    } catch (RuntimeException e) {
      failed(e);
    }
  }
}
