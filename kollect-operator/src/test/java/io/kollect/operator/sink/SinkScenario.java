package io.kollect.operator.sink;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.export.kafka.KafkaSinkConfig;
import io.kollect.export.otlp.OtlpSinkConfig;
import io.kollect.operator.PerClassCluster;
import io.kollect.operator.ReconcileSettings;
import io.kollect.operator.TestOperator;
import io.kollect.operator.cluster.TestCluster;
import io.kollect.operator.crd.KollectSink;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The arrangement every sink IT of the operator shares: one real API server ({@link
 * PerClassCluster}) with {@code kollect-system} and the scenario's namespace, what the sinks talk
 * to (receivers, a broker, a database: the class starts them in its {@code @BeforeAll} and hands
 * them to {@link #closeAfter}), and the operator trusting that namespace with status written
 * every 500 ms. After the class's last test it stops them in reverse: the operator first (so it
 * never delivers to a counterpart already gone, which would only slow its shutdown), then the
 * counterparts, last started first, then the API server. Register it as a static field: {@code
 * @RegisterExtension static final SinkScenario scenario = SinkScenario.in("shop");}.
 */
final class SinkScenario implements BeforeAllCallback, AfterAllCallback {

  /** How often a sink IT's operator writes status: the conditions are awaited, not the clock. */
  private static final Duration STATUS_WRITE_INTERVAL = Duration.ofMillis(500);
  /**
   * How often a change of delivery figures alone (a sink's failures, its last error) reaches the
   * status: 30 s when shipped, which a test of a sink failing and recovering would wait out twice.
   */
  private static final Duration LAST_EXPORT_NOTIFY_INTERVAL = Duration.ofSeconds(1);

  private final String namespace;
  private final PerClassCluster api;
  private final Deque<AutoCloseable> counterparts = new ArrayDeque<>();
  private boolean secretsReadEverySecond;
  private boolean retriedEverySecond;

  private SinkScenario(String namespace) {
    this.namespace = namespace;
    this.api = PerClassCluster.withNamespaces(namespace);
  }

  /** A scenario whose targets, sinks and objects live in {@code namespace}. */
  static SinkScenario in(String namespace) {
    return new SinkScenario(namespace);
  }

  /**
   * Secrets are read again after a second, not after the shipped 30 s, for the whole class: its
   * rotation steps should not wait for the operator's cache.
   */
  SinkScenario secretsReadEverySecond() {
    secretsReadEverySecond = true;
    return this;
  }

  /**
   * For the whole class, a failing sink is retried at most a second apart (shipped: a delay that
   * grows to 2 min) and kafka and otlp sinks ask their credentials again every second (shipped:
   * 10 s): a recovery or rotation step then waits for what it tests, not for a delay grown over
   * the failures before it or for the next check.
   */
  SinkScenario retriedEverySecond() {
    retriedEverySecond = true;
    return this;
  }

  TestCluster cluster() {
    return api.cluster();
  }

  /** The admin client. */
  KubernetesClient client() {
    return api.client();
  }

  /** Closes {@code counterpart} after the operator, before the API server. */
  <T extends AutoCloseable> T closeAfter(T counterpart) {
    counterparts.push(counterpart);
    return counterpart;
  }

  /** Starts the operator trusting the scenario's namespace, status written every 500 ms. */
  TestOperator startOperator() {
    return startOperator(UnaryOperator.identity());
  }

  /**
   * As {@link #startOperator()}, with what {@code more} changes on top; stopped after the class's
   * last test, or by the test (the one started last is the one stopped at the end).
   */
  TestOperator startOperator(UnaryOperator<TestOperator> more) {
    return api.start(more.apply(TestOperator.on(api.cluster())
        // not a tenancy test: the platform trusts the namespace of its targets
        .trusting(namespace)
        .configure(c -> c.toBuilder().statusWriteInterval(STATUS_WRITE_INTERVAL)
            .timings(ReconcileSettings.Timings.shipped()
                .withLastExportNotifyInterval(LAST_EXPORT_NOTIFY_INTERVAL)).build())));
  }

  /** The ConfigMap {@code name} of the scenario's namespace, with {@code data.v} = {@code v}. */
  void configMap(String name, String v) {
    api.cluster().apply("""
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: %s, namespace: %s}
        data: {v: "%s"}
        """.formatted(name, namespace, v));
  }

  /** The condition {@code type} of the KollectSink {@code sink}, or null while it has none. */
  Condition condition(String sink, String type) {
    KollectSink s = client().resources(KollectSink.class).inNamespace(namespace).withName(sink)
        .get();
    if (s == null || s.getStatus() == null || s.getStatus().conditions() == null) {
      return null;
    }
    return s.getStatus().conditions().stream().filter(c -> c.getType().equals(type))
        .findFirst().orElse(null);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (secretsReadEverySecond) {
      SecretValues.ttl = Duration.ofSeconds(1);
    }
    if (retriedEverySecond) {
      SinkTranslation.maxBackoff = Optional.of(Duration.ofSeconds(1));
      SinkTranslation.kafkaCredentialsCheckInterval = Duration.ofSeconds(1);
      OtlpSinkTranslation.credentialsCheckInterval = Duration.ofSeconds(1);
    }
    api.beforeAll(context);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    Exception failed = null;
    try {
      if (api.operator() != null) {
        api.operator().close();
      }
      while (!counterparts.isEmpty()) {
        try {
          counterparts.pop().close();
        } catch (Exception e) {
          if (failed == null) {
            failed = e;
          } else {
            failed.addSuppressed(e);
          }
        }
      }
    } finally {
      api.afterAll(context);
      if (secretsReadEverySecond) {
        SecretValues.ttl = SecretValues.TTL;
      }
      if (retriedEverySecond) {
        SinkTranslation.maxBackoff = Optional.empty();
        SinkTranslation.kafkaCredentialsCheckInterval =
            KafkaSinkConfig.DEFAULT_CREDENTIALS_CHECK_INTERVAL;
        OtlpSinkTranslation.credentialsCheckInterval =
            OtlpSinkConfig.DEFAULT_CREDENTIALS_CHECK_INTERVAL;
      }
    }
    if (failed != null) {
      throw failed;
    }
  }
}
