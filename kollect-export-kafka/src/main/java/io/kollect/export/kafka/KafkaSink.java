package io.kollect.export.kafka;

import io.kollect.export.RecordsRejectedException;
import io.kollect.export.Rejection;
import io.kollect.export.Sink;
import io.kollect.export.SinkException;
import io.kollect.export.SinkOptions;
import io.kollect.export.SuppliedSecret;
import io.kollect.export.ThrottledCredentials;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import io.kollect.extract.Records;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes records to a Kafka topic whose compacted content <em>is</em> the inventory: one message
 * per object state under the object's identity ({@link #messageKey}), the record JSON as value,
 * and for a DELETE a tombstone (null value), the DELETE record, or both ({@link
 * KafkaSinkConfig.Deletes}). Headers {@code op}, {@code contentHash} (absent on a DELETE) and
 * {@code sequence} let a consumer filter without parsing the value.
 *
 * <p><b>Acknowledged means replicated.</b> The producer is idempotent with {@code acks=all}, and
 * {@link #write} returns only when the brokers acknowledged every message of the batch; the
 * exporter saves its checkpoint only then, so a crash or a broker outage loses nothing and a
 * restart re-sends at most the unacknowledged tail (a duplicate carries the same key and sequence,
 * and compaction keeps the last).
 *
 * <p><b>Order.</b> All messages of one key go to one partition (the default partitioner hashes the
 * key), the exporter never writes two batches of one target at once, and the idempotent producer
 * keeps send order per partition with at most 5 requests in flight, so per-key order holds end to
 * end. Batches of different targets are written concurrently ({@link #concurrentWrites()}): the
 * producer is thread-safe and batches them together.
 *
 * <p><b>Failures.</b> A message larger than the topic's {@code max.message.bytes} (or the
 * producer's {@code max.request.size}) is refused alone with a {@link RecordsRejectedException}
 * while the others of the batch are delivered ({@code othersDelivered}); anything else that keeps
 * a message from its ack (broker down, timeout, authentication) is a retryable {@link
 * SinkException} naming the brokers and the cause. Every wait is bounded by {@link
 * KafkaSinkConfig#deliveryTimeout()}.
 *
 * <p><b>Topic check.</b> Before the first write (and again before each write while it fails) the
 * sink asks the brokers about the topic ({@link #checkTopic()}): a missing topic is created
 * compacted when {@link KafkaSinkConfig#createTopic()} says how, else it is an error and nothing is
 * sent (the producer would otherwise let a broker auto-create a non-compacted topic); an existing
 * topic without {@code cleanup.policy=compact} is a warning. {@link #topicCheck()} holds the last
 * outcome for a status condition.
 *
 * <p><b>Rotated credentials.</b> The TLS and SASL material comes from suppliers ({@link
 * KafkaSinkConfig.Tls}, {@link KafkaSinkConfig.Sasl}), asked again before a write or a topic check
 * at most every {@link KafkaSinkConfig#credentialsCheckInterval()}. When what they return changed
 * (a fingerprint compare; values are never logged), the next write waits for the writes in flight
 * on the old producer to finish, closes it (which drains what it still holds) and builds a new
 * producer: a new connection, a new producer id. Per-key order holds because nothing is written on
 * the new producer before the old one is drained, and nothing acknowledged is sent again: the sink
 * stays the same, only its producer changes. A supplier that throws or returns nothing fails the
 * write retryably, naming the field, never the value.
 */
public final class KafkaSink implements Sink {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaSink.class);
  /** Slack over the client's own delivery timeout before a write stops waiting for a future. */
  private static final Duration WAIT_MARGIN = Duration.ofSeconds(5);

  private final String name;
  private final KafkaSinkConfig config;
  private final String brokers;
  private final AtomicLong lag = new AtomicLong();
  private final Object lock = new Object();
  private volatile TopicCheck topicCheck;
  private Producer<byte[], byte[]> producer;
  /** What {@link #producer} was built with. */
  private Credentials producerCredentials;
  private boolean closed;
  /**
   * Writes hold the read lock from send to the last ack; replacing the producer takes the write
   * lock, so the old producer is closed only when no write is using it and the new one is written
   * to only after every message of the old one was acknowledged or failed.
   */
  private final ReadWriteLock producerUse = new ReentrantReadWriteLock();
  /** The suppliers' last answer, asked again once per check interval. */
  private final ThrottledCredentials<Credentials> credentials;

  public KafkaSink(String name, KafkaSinkConfig config) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.brokers = String.join(",", config.bootstrapServers());
    this.credentials = new ThrottledCredentials<>(() -> Credentials.read(config),
        config.credentialsCheckInterval(), (before, after) -> LOG.info("kafka sink {}: Kafka"
            + " credentials changed; the next write drains the producer and connects to {} with"
            + " the new ones", name, brokers));
    this.topicCheck = TopicCheck.notChecked(config.topic());
  }

  /**
   * The kafka sink's own delivery defaults: linger 5 ms (change→ack latency stays in
   * milliseconds; the producer batches concurrent writes itself) and heartbeat off, because the
   * compacted topic already keeps every object's last state.
   */
  public static SinkOptions defaultOptions() {
    return SinkOptions.defaults().withLinger(ClientProperties.LINGER)
        .withHeartbeatInterval(Duration.ZERO);
  }

  /**
   * The message key of a record: {@code
   * {cluster}/{target namespace}/{target name}/{group}/{kind}/{namespace}/{name}}, with the group
   * empty for the core API group and the namespace empty for cluster-scoped objects, for example
   * {@code prod-eu-1/platform/cms//ConfigMap/load/cm-7}. Stable and independent of the API version,
   * so every state of an object, in every Kollect version, lands under one key. A target without a
   * namespace ({@code name} only) gives an empty target namespace.
   */
  public static String messageKey(Record record) {
    String target = record.target() == null ? "" : record.target();
    String targetPart = target.indexOf('/') >= 0 ? target : "/" + target;
    return nullToEmpty(record.cluster()) + "/" + targetPart + "/" + record.key();
  }

  @Override
  public String name() {
    return name;
  }

  /** Every shard produces to the same topic: its compacted content is one inventory. */
  @Override
  public boolean destinationSharedByShards() {
    return true;
  }

  /** What the sink was built from (a host checks its translation of a user's spec with it). */
  public KafkaSinkConfig config() {
    return config;
  }

  /** The producer is thread-safe; batches of different targets are sent together. */
  @Override
  public boolean concurrentWrites() {
    return true;
  }

  /** The outcome of the last topic check ({@link TopicCheck.Status#UNKNOWN} before the first). */
  public TopicCheck topicCheck() {
    return topicCheck;
  }

  /** Messages handed to the producer and not yet acknowledged (or failed) by the brokers. */
  public long lag() {
    return lag.get();
  }

  /**
   * The producer's own metrics (kafka-clients' {@code producer-metrics}, per-node and per-topic
   * groups), as {@code group:name{tags}} to value, for a host to publish next to the exporter's
   * counters. Empty before the first write created the producer.
   */
  public Map<String, Double> producerMetrics() {
    Producer<byte[], byte[]> p;
    synchronized (lock) {
      p = producer;
    }
    Map<String, Double> out = new TreeMap<>();
    if (p == null) {
      return out;
    }
    for (Map.Entry<MetricName, ? extends Metric> e : p.metrics().entrySet()) {
      if (e.getValue().metricValue() instanceof Number n) {
        MetricName m = e.getKey();
        out.put(m.group() + ":" + m.name() + (m.tags().isEmpty() ? "" : new TreeMap<>(m.tags())),
            n.doubleValue());
      }
    }
    return out;
  }

  /**
   * Asks the brokers about the topic, creates it compacted when it is missing and {@link
   * KafkaSinkConfig#createTopic()} allows, and keeps the outcome for {@link #topicCheck()}. Takes
   * at most about {@link KafkaSinkConfig#deliveryTimeout()}.
   */
  public TopicCheck checkTopic() {
    TopicCheck check = runTopicCheck();
    TopicCheck before = topicCheck;
    topicCheck = check;
    if (!check.equals(before)) {
      if (check.status() == TopicCheck.Status.READY) {
        LOG.info("kafka sink {}: {}", name, check.message());
      } else {
        LOG.warn("kafka sink {}: {}", name, check.message());
      }
    }
    return check;
  }

  private TopicCheck runTopicCheck() {
    String topic = config.topic();
    long timeoutMs = config.deliveryTimeout().toMillis();
    Credentials current;
    try {
      current = credentials.get();
    } catch (SuppliedSecret.UnavailableException e) {
      return new TopicCheck(TopicCheck.Status.ERROR, "TopicCheckFailed", "cannot check topic "
          + topic + " on " + brokers + ": " + e.getMessage());
    }
    try (Admin admin = Admin.create(ClientProperties.admin(config, current,
        "kollect-" + name + "-admin"))) {
      if (!exists(admin, topic, timeoutMs)) {
        TopicCheck created = create(admin, topic, timeoutMs);
        if (created != null) {
          return created;
        }
      }
      return checkCompaction(admin, topic, timeoutMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return failedCheck(topic, e);
    } catch (ExecutionException e) {
      return failedCheck(topic, e.getCause());
    } catch (TimeoutException e) {
      return failedCheck(topic, new TimeoutException("no answer from the brokers within "
          + timeoutMs + " ms (are they reachable, is the address right?)"));
    } catch (KafkaException e) {
      return failedCheck(topic, e);
    }
  }

  private static boolean exists(Admin admin, String topic, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      admin.describeTopics(List.of(topic)).allTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
        throw e;
      }
      return false;
    }
  }

  /**
   * Creates the missing topic compacted when {@link KafkaSinkConfig#createTopic()} allows; null
   * when another replica or sink created it meanwhile (it is then checked like any other).
   */
  private TopicCheck create(Admin admin, String topic, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    KafkaSinkConfig.CreateTopic create = config.createTopic();
    if (create == null) {
      return new TopicCheck(TopicCheck.Status.ERROR, "TopicMissing", "topic " + topic
          + " does not exist on " + brokers + " and createTopic is not set: create it"
          + " compacted (cleanup.policy=compact) or set createTopic");
    }
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    configs.put(TopicConfig.DELETE_RETENTION_MS_CONFIG,
        String.valueOf(create.deleteRetention().toMillis()));
    if (!create.minCompactionLag().isZero()) {
      configs.put(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
          String.valueOf(create.minCompactionLag().toMillis()));
    }
    try {
      admin.createTopics(List.of(new NewTopic(topic, create.partitions(),
          create.replicationFactor()).configs(configs))).all().get(timeoutMs,
              TimeUnit.MILLISECONDS);
      return new TopicCheck(TopicCheck.Status.READY, "TopicCreated", "topic " + topic
          + " created on " + brokers + " with " + create.partitions() + " partition(s), "
          + create.replicationFactor() + " replica(s), " + configs);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
      return null;
    }
  }

  /** Whether the existing topic is compacted, as the inventory needs. */
  private TopicCheck checkCompaction(Admin admin, String topic, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config topicConfig = admin.describeConfigs(List.of(resource)).all()
        .get(timeoutMs, TimeUnit.MILLISECONDS).get(resource);
    ConfigEntry policy = topicConfig == null ? null
        : topicConfig.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    String value = policy == null ? "" : policy.value();
    if (!List.of(value.split(",")).contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
      return new TopicCheck(TopicCheck.Status.WARNING, "TopicNotCompacted", "topic " + topic
          + " on " + brokers + " has cleanup.policy=" + value + ", not compact: deleted objects"
          + " stay in the topic until retention drops them, and retention also drops live"
          + " objects' last state; set cleanup.policy=compact");
    }
    return new TopicCheck(TopicCheck.Status.READY, "TopicReady", "topic " + topic + " on "
        + brokers + " is compacted (cleanup.policy=" + value + ")");
  }

  private TopicCheck failedCheck(String topic, Throwable cause) {
    return new TopicCheck(TopicCheck.Status.ERROR, "TopicCheckFailed", "cannot check topic "
        + topic + " on " + brokers + ": " + describe(cause));
  }

  /**
   * Sends every record of the batch, then waits for all acks; returns only when each message was
   * acknowledged by the brokers.
   */
  @Override
  public void write(List<Record> batch) throws SinkException {
    if (batch.isEmpty()) {
      return;
    }
    try {
      credentials.get();
    } catch (SuppliedSecret.UnavailableException e) {
      // the records wait (coalesced) until the supplier answers again, e.g. a Secret is restored
      throw SinkException.retryable("kafka " + brokers + ": " + e.getMessage(), null);
    }
    TopicCheck check = topicCheck;
    if (!check.writable()) {
      check = checkTopic();
      if (!check.writable()) {
        // retryable: the records wait (coalesced) until the topic is there or the brokers answer
        throw SinkException.retryable("kafka " + brokers + ": " + check.message(), null);
      }
    }
    Producer<byte[], byte[]> p = acquireProducer();
    try {
      List<Sent> sent = new ArrayList<>(batch.size());
      sending:
      for (Record r : batch) {
        for (ProducerRecord<byte[], byte[]> message : messages(r)) {
          Future<RecordMetadata> future = send(p, message);
          sent.add(new Sent(r, message, future));
          if (failedBeforeSending(future)) {
            // send() blocks up to max.block.ms per message while the topic's metadata is unknown
            // (brokers down); stop at the first such failure so a batch fails in one timeout, not
            // in one per message. The rest of the batch is retried with it.
            break sending;
          }
        }
      }
      await(sent);
    } finally {
      producerUse.readLock().unlock();
    }
  }

  /**
   * The producer for the latest credentials, with {@link #producerUse}'s read lock held (the
   * caller releases it). A producer built with older credentials is replaced first: under the
   * write lock, once no write uses it, it is closed, which waits for what it still holds.
   */
  private Producer<byte[], byte[]> acquireProducer() throws SinkException {
    while (true) {
      producerUse.readLock().lock();
      boolean held = false;
      try {
        synchronized (lock) {
          if (closed) {
            throw SinkException.permanent("kafka sink " + name + ": closed", null);
          }
          Credentials latest = credentials.latest();
          if (producer == null) {
            producer = newProducer(latest);
            producerCredentials = latest;
          }
          if (producerCredentials.sameAs(latest)) {
            held = true;
            return producer;
          }
        }
      } finally {
        if (!held) {
          producerUse.readLock().unlock();
        }
      }
      Producer<byte[], byte[]> old = null;
      producerUse.writeLock().lock();
      try {
        synchronized (lock) {
          if (producer != null && !producerCredentials.sameAs(credentials.latest())) {
            old = producer;
            producer = null;
            producerCredentials = null;
          }
        }
        if (old != null) {
          // no write is using it (write lock): closing sends what it holds and waits for the acks
          old.close(config.deliveryTimeout());
          LOG.info("kafka sink {}: producer with the previous credentials closed; writing with"
              + " a new one", name);
        }
      } finally {
        producerUse.writeLock().unlock();
      }
    }
  }

  /** Whether the client failed the message at once for a reason other than its size. */
  private static boolean failedBeforeSending(Future<RecordMetadata> future) {
    if (!future.isDone()) {
      return false;
    }
    try {
      future.get();
      return false;
    } catch (ExecutionException e) {
      return !(e.getCause() instanceof RecordTooLargeException);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private Future<RecordMetadata> send(Producer<byte[], byte[]> p,
      ProducerRecord<byte[], byte[]> message) {
    lag.incrementAndGet();
    try {
      return p.send(message, (metadata, error) -> lag.decrementAndGet());
    } catch (KafkaException e) {
      // the client failed before taking the message (it is closed, or a fatal error): no callback
      lag.decrementAndGet();
      return CompletableFuture.failedFuture(e);
    }
  }

  private void await(List<Sent> sent) throws SinkException {
    long deadline = System.nanoTime() + config.deliveryTimeout().plus(WAIT_MARGIN).toNanos();
    Map<String, Rejection> rejected = new LinkedHashMap<>();
    Throwable failure = null;
    int failed = 0;
    for (Sent s : sent) {
      try {
        s.future().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RecordTooLargeException) {
          String key = s.record().key();
          rejected.putIfAbsent(key, new Rejection(key, "message of " + size(s.message())
              + " bytes refused as too large (topic max.message.bytes or producer"
              + " max.request.size): " + describe(cause)));
        } else {
          failed++;
          failure = failure == null ? cause : failure;
        }
      } catch (TimeoutException e) {
        failed++;
        failure = failure == null ? e : failure;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw SinkException.retryable("kafka " + brokers + ": interrupted waiting for acks", e);
      }
    }
    if (failure != null) {
      // all retryable: the exporter re-sends the newest state of these keys; the acknowledged
      // ones are re-sent too, which is harmless (same key, same sequence, compaction keeps one)
      throw SinkException.retryable("kafka " + brokers + " topic " + config.topic() + ": "
          + failed + " of " + sent.size() + " message(s) not acknowledged: " + describe(failure),
          failure);
    }
    if (!rejected.isEmpty()) {
      throw new RecordsRejectedException(List.copyOf(rejected.values()), true);
    }
  }

  /** The messages of one record: one, or two for a DELETE with {@code deletes: both}. */
  List<ProducerRecord<byte[], byte[]>> messages(Record record) {
    byte[] key = messageKey(record).getBytes(StandardCharsets.UTF_8);
    List<Header> headers = headers(record);
    if (record.op() == Op.UPSERT) {
      return List.of(message(key, json(record), headers));
    }
    return switch (config.deletes()) {
      case TOMBSTONE -> List.of(message(key, null, headers));
      case RECORD -> List.of(message(key, json(record), headers));
      // record first, so a consumer reading in order sees the delete before compaction drops both
      case BOTH -> List.of(message(key, json(record), headers), message(key, null, headers));
    };
  }

  private ProducerRecord<byte[], byte[]> message(byte[] key, byte[] value, List<Header> headers) {
    return new ProducerRecord<>(config.topic(), null, null, key, value, headers);
  }

  private static List<Header> headers(Record record) {
    List<Header> headers = new ArrayList<>(3);
    headers.add(header("op", record.op().name()));
    if (record.contentHash() != null) {
      headers.add(header("contentHash", record.contentHash()));
    }
    if (record.sequence() != null) {
      headers.add(header("sequence", Long.toString(record.sequence())));
    }
    return headers;
  }

  private static Header header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }

  /** The documented record JSON, the same line the file and stdout sinks write. */
  private static byte[] json(Record record) {
    return Records.toJsonBytes(record);
  }

  private Producer<byte[], byte[]> newProducer(Credentials current) throws SinkException {
    try {
      return new KafkaProducer<>(ClientProperties.producer(config, current, "kollect-" + name));
    } catch (KafkaException e) {
      // for example no resolvable bootstrap address or PEM text kafka-clients cannot parse: a DNS
      // fix, a rotated Secret or a config update recovers
      throw SinkException.retryable("kafka " + brokers + ": cannot create the producer: "
          + describe(e), e);
    }
  }

  @Override
  public void close() {
    Producer<byte[], byte[]> p;
    synchronized (lock) {
      closed = true;
      p = producer;
      producer = null;
      producerCredentials = null;
    }
    if (p != null) {
      // what is not acknowledged by now is not in the checkpoint either and is sent again
      p.close(Duration.ofSeconds(5));
    }
  }

  private static int size(ProducerRecord<byte[], byte[]> m) {
    return (m.key() == null ? 0 : m.key().length) + (m.value() == null ? 0 : m.value().length);
  }

  /** The exception's class and message, and its cause's, for errors a person reads. */
  static String describe(Throwable t) {
    if (t == null) {
      return "unknown error";
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

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  private record Sent(Record record, ProducerRecord<byte[], byte[]> message,
      Future<RecordMetadata> future) {}

}
