package io.kollect.export.otlp;

import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.export.SuppliedSecret;
import io.kollect.export.ThrottledCredentials;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Record;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporterBuilder;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporterBuilder;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.logs.data.LogRecordData;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends records as OpenTelemetry entity events (OTLP log records) to an OTLP receiver, over
 * OTLP/HTTP with protobuf bodies or OTLP/gRPC, with the opentelemetry-java exporters ({@code
 * OtlpHttpLogRecordExporter}, {@code OtlpGrpcLogRecordExporter}). UPSERT is {@code entity.state},
 * DELETE {@code entity.delete}; the mapping is in {@code docs/record-format.md}, "OTLP mapping"
 * ({@link #entityType} gives the {@code entity.type} of a kind).
 *
 * <p><b>Delivery is Kollect's.</b> One {@link #write} is one {@code LogRecordExporter.export} call
 * with the whole batch, waited for up to {@link OtlpSinkConfig#timeout()}; the SDK's logger and
 * batch processor are never used (the processor drops records when its queue fills), and the
 * exporter's own retry policy is off, so a failed export fails the write at once and the
 * exporter's delivery channel retries with the newest state of each object. Every failure
 * (connection refused, timeout, any non-2xx answer or gRPC status) is a retryable {@link
 * SinkException}: nothing is acknowledged that the receiver did not accept.
 *
 * <p><b>Partial success.</b> An OTLP receiver may accept a request and drop some of its log
 * records, saying how many but not which; OTLP forbids retrying such a request. The sink
 * acknowledges the batch, adds the count to {@link #rejectedLogRecords()} and keeps the receiver's
 * message in {@link #lastPartialSuccess()} for the sink's status.
 *
 * <p><b>Rotated credentials.</b> The TLS material and the header values (API keys) come from
 * suppliers, asked again before a write at most every {@link
 * OtlpSinkConfig#credentialsCheckInterval()}. When what they return changed (a fingerprint
 * compare; values are never logged), the next write waits for the writes in flight on the old
 * exporter, shuts it down and builds a new one. A supplier that throws or returns nothing fails
 * the write retryably, naming the field.
 */
public final class OtlpSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(OtlpSink.class);
  /** Slack over the exporter's own timeout before a write stops waiting for its result. */
  private static final Duration WAIT_MARGIN = Duration.ofSeconds(2);

  private final String name;
  private final OtlpSinkConfig config;
  private final EntityEvents events;
  private final PartialSuccessWatch partialSuccessWatch;
  private final AtomicLong rejectedLogRecords = new AtomicLong();
  private final AtomicLong partialSuccesses = new AtomicLong();
  private volatile PartialSuccess lastPartialSuccess;

  private final Object lock = new Object();
  private LogRecordExporter exporter;
  /** What {@link #exporter} was built with. */
  private SuppliedMaterial exporterMaterial;
  private boolean closed;
  /**
   * Writes hold the read lock while they export; replacing the exporter takes the write lock, so
   * the old exporter is shut down only when no write uses it.
   */
  private final ReadWriteLock exporterUse = new ReentrantReadWriteLock();
  /** The suppliers' last answer, asked again once per check interval. */
  private final ThrottledCredentials<SuppliedMaterial> material;

  /** A sink named {@code name} (unique within an exporter) sending as {@code config} says. */
  public OtlpSink(String name, OtlpSinkConfig config) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.material = new ThrottledCredentials<>(() -> SuppliedMaterial.read(config),
        config.credentialsCheckInterval(), (before, after) -> LOG.info("otlp sink {}: TLS material"
            + " or headers changed; the next write uses a new exporter to {}", name,
            config.endpoint()));
    this.events = new EntityEvents(config.resourceAttributes(), config.reportInterval());
    this.partialSuccessWatch = new PartialSuccessWatch(this::onPartialSuccess);
  }

  /**
   * The {@code entity.type} of a kind: the semantic-convention name where one exists ({@code
   * k8s.deployment}, {@code k8s.pod}, ...), otherwise {@code k8s.<kind lowercased>} for the core
   * API group and {@code k8s.<group>.<kind lowercased>} for any other.
   */
  public static String entityType(GroupVersionKind kind) {
    return EntityEvents.entityType(kind);
  }

  /** The semantic-conventions version the mapping follows (the resource's schema URL names it). */
  public static String semanticConventionsVersion() {
    return EntityEvents.SEMCONV_VERSION;
  }

  @Override
  public String name() {
    return name;
  }

  /** What the sink was built from (a host checks its translation of a user's spec with it). */
  public OtlpSinkConfig config() {
    return config;
  }

  /** The exporter is thread-safe; batches of different targets are exported concurrently. */
  @Override
  public boolean concurrentWrites() {
    return true;
  }

  /** Every shard sends to the same receiver. */
  @Override
  public boolean destinationSharedByShards() {
    return true;
  }

  /** Log records the receiver reported dropped in partial successes, since the sink was built. */
  public long rejectedLogRecords() {
    return rejectedLogRecords.get();
  }

  /** How many answers were partial successes, since the sink was built. */
  public long partialSuccesses() {
    return partialSuccesses.get();
  }

  /** The most recent partial success, for the sink's status; empty while there was none. */
  public Optional<PartialSuccess> lastPartialSuccess() {
    return Optional.ofNullable(lastPartialSuccess);
  }

  private void onPartialSuccess(PartialSuccess partial) {
    rejectedLogRecords.addAndGet(partial.rejectedLogRecords());
    partialSuccesses.incrementAndGet();
    lastPartialSuccess = partial;
    LOG.warn("otlp sink {}: {} accepted a batch partially, {} log record(s) rejected: {}", name,
        config.endpoint(), partial.rejectedLogRecords(), partial.errorMessage());
  }

  /**
   * Exports the batch as one request and waits for the receiver's answer; returns only when it
   * accepted the request (fully, or partially: see the class comment).
   */
  @Override
  public void write(List<Record> batch) throws SinkException {
    if (batch.isEmpty()) {
      return;
    }
    try {
      material.get();
    } catch (SuppliedSecret.UnavailableException e) {
      // the records wait (coalesced) until the supplier answers again, e.g. a Secret is restored
      throw SinkException.retryable("otlp " + config.endpoint() + ": " + e.getMessage(), null);
    }
    List<LogRecordData> logs = new ArrayList<>(batch.size());
    for (Record r : batch) {
      logs.add(events.event(r));
    }
    LogRecordExporter e = acquireExporter();
    CompletableResultCode result;
    try {
      result = e.export(logs);
      result.join(config.timeout().plus(WAIT_MARGIN).toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      exporterUse.readLock().unlock();
    }
    if (!result.isDone()) {
      throw SinkException.retryable("otlp " + config.endpoint() + ": no answer within "
          + config.timeout().plus(WAIT_MARGIN).toMillis() + " ms for " + batch.size()
          + " log record(s)", null);
    }
    if (!result.isSuccess()) {
      Throwable cause = result.getFailureThrowable();
      throw SinkException.retryable("otlp " + config.endpoint() + " (" + config.protocol()
          .configName() + "): export of " + batch.size() + " log record(s) failed: "
          + describe(cause), cause);
    }
  }

  /**
   * The exporter for the latest material, with {@link #exporterUse}'s read lock held (the caller
   * releases it). One built with older material is shut down first, once no write uses it.
   */
  private LogRecordExporter acquireExporter() throws SinkException {
    while (true) {
      exporterUse.readLock().lock();
      boolean held = false;
      try {
        synchronized (lock) {
          if (closed) {
            throw SinkException.permanent("otlp sink " + name + ": closed", null);
          }
          SuppliedMaterial latest = material.latest();
          if (exporter == null) {
            exporter = newExporter(latest);
            exporterMaterial = latest;
          }
          if (exporterMaterial.sameAs(latest)) {
            held = true;
            return exporter;
          }
        }
      } finally {
        if (!held) {
          exporterUse.readLock().unlock();
        }
      }
      LogRecordExporter old = null;
      exporterUse.writeLock().lock();
      try {
        synchronized (lock) {
          if (exporter != null && !exporterMaterial.sameAs(material.latest())) {
            old = exporter;
            exporter = null;
            exporterMaterial = null;
          }
        }
        if (old != null) {
          old.shutdown().join(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
        }
      } finally {
        exporterUse.writeLock().unlock();
      }
    }
  }

  private LogRecordExporter newExporter(SuppliedMaterial m) throws SinkException {
    String endpoint = config.endpoint().toString();
    try {
      if (config.protocol() == OtlpSinkConfig.Protocol.GRPC) {
        OtlpGrpcLogRecordExporterBuilder b = OtlpGrpcLogRecordExporter.builder()
            .setEndpoint(endpoint)
            .setTimeout(config.timeout())
            .setConnectTimeout(config.timeout())
            // Kollect's delivery channel retries, with the newest state of each object
            .setRetryPolicy(null)
            .setComponentLoader(partialSuccessWatch);
        m.headers().forEach(b::addHeader);
        if (m.caPem() != null) {
          b.setTrustedCertificates(m.caPem().getBytes(StandardCharsets.UTF_8));
        }
        if (m.clientCertPem() != null) {
          b.setClientTls(m.clientKeyPem().getBytes(StandardCharsets.UTF_8),
              m.clientCertPem().getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
      }
      OtlpHttpLogRecordExporterBuilder b = OtlpHttpLogRecordExporter.builder()
          .setEndpoint(endpoint)
          .setTimeout(config.timeout())
          .setConnectTimeout(config.timeout())
          .setRetryPolicy(null)
          .setComponentLoader(partialSuccessWatch);
      m.headers().forEach(b::addHeader);
      if (m.caPem() != null) {
        b.setTrustedCertificates(m.caPem().getBytes(StandardCharsets.UTF_8));
      }
      if (m.clientCertPem() != null) {
        b.setClientTls(m.clientKeyPem().getBytes(StandardCharsets.UTF_8),
            m.clientCertPem().getBytes(StandardCharsets.UTF_8));
      }
      return b.build();
    } catch (RuntimeException e) {
      // PEM the exporter cannot parse, for example: a rotated Secret or a config update recovers
      throw SinkException.retryable("otlp " + endpoint + ": cannot build the exporter: "
          + describe(e), e);
    }
  }

  @Override
  public void close() {
    LogRecordExporter e;
    synchronized (lock) {
      closed = true;
      e = exporter;
      exporter = null;
      exporterMaterial = null;
    }
    if (e != null) {
      e.shutdown().join(5, TimeUnit.SECONDS);
    }
  }

  /** The exception's class and message, and its cause's, for errors a person reads. */
  static String describe(Throwable t) {
    if (t == null) {
      return "the exporter gave no reason";
    }
    StringBuilder s = new StringBuilder(t.getClass().getSimpleName());
    if (t.getMessage() != null) {
      s.append(": ").append(t.getMessage());
    }
    Throwable cause = t.getCause();
    if (cause != null && cause != t && cause.getMessage() != null
        && !Objects.equals(cause.getMessage(), t.getMessage())) {
      s.append(" (").append(cause.getClass().getSimpleName()).append(": ")
          .append(cause.getMessage()).append(')');
    }
    return s.toString();
  }
}
