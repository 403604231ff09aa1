package io.kollect.export.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStream;
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
 * acknowledged.
 */
final class KafkaBroker implements AutoCloseable {

  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final String clusterId = Uuid.randomUuid().toString();
  private final Map<String, String> extra;
  /** A second, SASL_PLAINTEXT listener with SCRAM-SHA-512 ({@code null}: none). */
  private final String scramUser;
  private final String scramPassword;
  private final int saslPort;
  private KafkaRaftServer server;

  private KafkaBroker(Map<String, String> extra, String scramUser, String scramPassword)
      throws IOException {
    this.dir = Files.createTempDirectory("kollect-kafka");
    this.port = freePort();
    this.controllerPort = freePort();
    this.saslPort = freePort();
    this.extra = extra;
    this.scramUser = scramUser;
    this.scramPassword = scramPassword;
  }

  /** Starts a broker; {@code extra} are further broker settings. */
  static KafkaBroker launch(Map<String, String> extra) throws Exception {
    return launch(new KafkaBroker(extra, null, null));
  }

  /**
   * Starts a broker with, besides the plaintext listener, a SASL_PLAINTEXT listener ({@link
   * #saslBootstrapServers()}) that accepts SCRAM-SHA-512 {@code user}/{@code password}.
   */
  static KafkaBroker launchWithScram(String user, String password) throws Exception {
    return launch(new KafkaBroker(Map.of(), user, password));
  }

  private static KafkaBroker launch(KafkaBroker broker) throws Exception {
    broker.format();
    broker.start();
    return broker;
  }

  static KafkaBroker launch() throws Exception {
    return launch(Map.of());
  }

  String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  String saslBootstrapServers() {
    return "127.0.0.1:" + saslPort;
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
    if (scramUser != null) {
      p.put("listeners", p.get("listeners") + ",SASL://127.0.0.1:" + saslPort);
      p.put("advertised.listeners", p.get("advertised.listeners") + ",SASL://127.0.0.1:"
          + saslPort);
      p.put("listener.security.protocol.map", p.get("listener.security.protocol.map")
          + ",SASL:SASL_PLAINTEXT");
      p.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
      p.put("listener.name.sasl.scram-sha-512.sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required;");
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
        .setScramArguments(scramUser == null ? List.of() : List.of("SCRAM-SHA-512=[name="
            + scramUser + ",password=" + scramPassword + "]"))
        .run();
  }

  /** Starts (again) on the same ports and log directory; returns when the broker serves. */
  synchronized void start() {
    server = new KafkaRaftServer(KafkaConfig.fromProps(properties(), false), Time.SYSTEM);
    server.startup();
  }

  /** A clean shutdown: the broker is gone until {@link #start()}. */
  synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /** An admin client on this broker (the caller closes it). */
  Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000));
  }

  /** Creates a topic with the given configs, waiting for the broker's answer. */
  void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
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
