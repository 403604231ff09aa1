package io.kollect.export.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka (KRaft: broker and controller in one process) on loopback ports, with
 * its log in a temporary directory. {@link #stop()} and {@link #start()} restart it on the same
 * ports and data, so a test can take the broker away mid-stream and bring it back with what it had
 * acknowledged. Public, with {@link TopicContent}: kollect-operator's ITs use both from this
 * module's test-jar.
 */
public final class KafkaBroker implements AutoCloseable {

  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final String clusterId = Uuid.randomUuid().toString();
  private final Map<String, String> extra;
  /** A second listener, {@code SECURE}, with its security protocol ({@code null}: none). */
  private final String secureProtocol;
  private volatile Map<String, String> secureSettings;
  /** SCRAM credentials the formatter writes into the metadata log. */
  private final List<String> scramArguments;
  private final int securePort;
  private KafkaRaftServer server;

  private KafkaBroker(Map<String, String> extra, String secureProtocol,
      Map<String, String> secureSettings, List<String> scramArguments) throws IOException {
    this.dir = Files.createTempDirectory("kollect-kafka");
    this.port = freePort();
    this.controllerPort = freePort();
    this.securePort = freePort();
    this.extra = extra;
    this.secureProtocol = secureProtocol;
    this.secureSettings = secureSettings;
    this.scramArguments = scramArguments;
  }

  /** Starts a broker; {@code extra} are further broker settings. */
  public static KafkaBroker launch(Map<String, String> extra) throws Exception {
    return launch(() -> new KafkaBroker(extra, null, Map.of(), List.of()));
  }

  /**
   * Starts a broker with, besides the plaintext listener, a SASL_PLAINTEXT listener ({@link
   * #secureBootstrapServers()}) that accepts SCRAM-SHA-512 {@code user}/{@code password}.
   */
  public static KafkaBroker launchWithScram(String user, String password) throws Exception {
    return launch(() -> new KafkaBroker(Map.of(), "SASL_PLAINTEXT", Map.of(
        "sasl.enabled.mechanisms", "SCRAM-SHA-512",
        "listener.name.secure.scram-sha-512.sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required;"),
        List.of("SCRAM-SHA-512=[name=" + user + ",password=" + password + "]")));
  }

  /**
   * Starts a broker with, besides the plaintext listener, an SSL listener ({@link
   * #secureBootstrapServers()}) presenting {@code serverCertPem} and requiring a client
   * certificate signed by {@code clientCaPem} (all PEM, as kafka-clients reads them).
   */
  public static KafkaBroker launchWithTls(String serverCertPem, String serverKeyPem, String clientCaPem)
      throws Exception {
    return launch(() -> new KafkaBroker(Map.of(), "SSL",
        tlsSettings(serverCertPem, serverKeyPem, clientCaPem), List.of()));
  }

  /**
   * Stops a broker of {@link #launchWithTls} and starts it again with new TLS material on the
   * same ports and data: a CA or server certificate rotation on the broker's side. Connections
   * made with the old material end with the restart.
   */
  public synchronized void restartWithTls(String serverCertPem, String serverKeyPem,
      String clientCaPem) {
    if (!"SSL".equals(secureProtocol)) {
      throw new IllegalStateException("restartWithTls: this broker was not launched with TLS");
    }
    stop();
    secureSettings = tlsSettings(serverCertPem, serverKeyPem, clientCaPem);
    start();
  }

  private static Map<String, String> tlsSettings(String serverCertPem, String serverKeyPem,
      String clientCaPem) {
    return Map.of(
        "listener.name.secure.ssl.keystore.type", "PEM",
        "listener.name.secure.ssl.keystore.certificate.chain", serverCertPem,
        "listener.name.secure.ssl.keystore.key", serverKeyPem,
        "listener.name.secure.ssl.truststore.type", "PEM",
        "listener.name.secure.ssl.truststore.certificates", clientCaPem,
        "listener.name.secure.ssl.client.auth", "required");
  }

  /** A broker not started yet, on ports free when it was made. */
  @FunctionalInterface
  private interface Unstarted {
    KafkaBroker make() throws IOException;
  }

  /**
   * Formats and starts a broker. Its ports were free when they were chosen, but another test JVM
   * (ITs run in several at once) can bind one before the broker does: then that broker is closed
   * and a new one, on new ports, is started instead.
   */
  private static KafkaBroker launch(Unstarted unstarted) throws Exception {
    for (int attempt = 1; ; attempt++) {
      KafkaBroker broker = unstarted.make();
      try {
        broker.format();
        broker.start();
        return broker;
      } catch (RuntimeException e) {
        boolean portTaken = false;
        for (Throwable c = e; c != null; c = c.getCause()) {
          portTaken |= c instanceof BindException;
        }
        try {
          broker.close();
        } catch (RuntimeException | IOException closing) {
          e.addSuppressed(closing);
        }
        if (!portTaken || attempt == 5) {
          throw e;
        }
      }
    }
  }

  public static KafkaBroker launch() throws Exception {
    return launch(Map.of());
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /**
   * The broker's log directory ({@code <topic>-<partition>/*.log}), for a test that looks at what
   * consumers cannot see, such as how a producer compressed its batches.
   */
  public Path logDir() {
    return dir;
  }

  /** The second listener of {@link #launchWithScram} or {@link #launchWithTls}. */
  public String secureBootstrapServers() {
    return "127.0.0.1:" + securePort;
  }

  private Properties properties() {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:"
        + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dir.toString());
    p.put("num.partitions", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    if (secureProtocol != null) {
      p.put("listeners", p.get("listeners") + ",SECURE://127.0.0.1:" + securePort);
      p.put("advertised.listeners", p.get("advertised.listeners") + ",SECURE://127.0.0.1:"
          + securePort);
      p.put("listener.security.protocol.map", p.get("listener.security.protocol.map")
          + ",SECURE:" + secureProtocol);
      p.putAll(secureSettings);
    }
    p.putAll(extra);
    return p;
  }

  private void format() throws Exception {
    KafkaConfig config = KafkaConfig.fromProps(properties(), false);
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
        .setClusterId(clusterId)
        .setNodeId(config.nodeId())
        .setControllerListenerName("CONTROLLER")
        .setMetadataLogDirectory(config.metadataLogDir())
        .setDirectories(List.of(dir.toString()))
        .setReleaseVersion(MetadataVersion.latestProduction())
        .setScramArguments(scramArguments)
        .run();
  }

  /** Starts (again) on the same ports and log directory; returns when the broker serves. */
  public synchronized void start() {
    server = new KafkaRaftServer(KafkaConfig.fromProps(properties(), false), Time.SYSTEM);
    server.startup();
  }

  /** A clean shutdown: the broker is gone until {@link #start()}. */
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /** An admin client on this broker (the caller closes it). */
  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000));
  }

  /** Creates a topic with the given configs, waiting for the broker's answer. */
  public void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
          .all().get();
    }
  }

  @Override
  public void close() throws IOException {
    stop();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

}
