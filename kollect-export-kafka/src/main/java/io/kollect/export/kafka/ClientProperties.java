package io.kollect.export.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Turns a {@link KafkaSinkConfig} into kafka-clients settings for the producer and the admin. */
final class ClientProperties {

  /** The kafka sink's producer linger: short, so change→ack latency stays low at idle. */
  static final Duration LINGER = Duration.ofMillis(5);

  private ClientProperties() {}

  /**
   * Connection and security settings, shared by the producer and the admin client; the TLS and
   * SASL material is what the config's suppliers returned last ({@code credentials}).
   */
  static Map<String, Object> connection(KafkaSinkConfig config, Credentials credentials,
      String clientId) {
    Map<String, Object> p = new HashMap<>();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",",
        config.bootstrapServers()));
    p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
    boolean tls = config.tls() != null;
    boolean sasl = config.sasl() != null;
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
        sasl ? (tls ? "SASL_SSL" : "SASL_PLAINTEXT") : (tls ? "SSL" : "PLAINTEXT"));
    if (tls) {
      // kafka-clients reads PEM text directly (KIP-651), so a Secret's content needs no key store
      if (credentials.caPem() != null) {
        p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        p.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, credentials.caPem());
      }
      if (credentials.clientCertPem() != null) {
        p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
        p.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, credentials.clientCertPem());
        p.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, credentials.clientKeyPem());
      }
    }
    if (sasl) {
      KafkaSinkConfig.Sasl s = config.sasl();
      p.put(SaslConfigs.SASL_MECHANISM, s.mechanism().kafkaName());
      String module = s.mechanism() == KafkaSinkConfig.SaslMechanism.PLAIN
          ? "org.apache.kafka.common.security.plain.PlainLoginModule"
          : "org.apache.kafka.common.security.scram.ScramLoginModule";
      p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\""
          + jaasEscape(credentials.username()) + "\" password=\""
          + jaasEscape(credentials.password()) + "\";");
    }
    // extra settings may also tune security (for example ssl.endpoint.identification.algorithm)
    config.producerProperties().forEach((k, v) -> {
      if (k.startsWith("ssl.") || k.startsWith("sasl.") || k.equals("security.protocol")) {
        p.put(k, v);
      }
    });
    return p;
  }

  /**
   * The producer: idempotent with {@code acks=all} (a broker ack means the record is replicated,
   * and a retry inside the client never duplicates or reorders), at most 5 requests in flight per
   * connection (the limit under which the idempotent producer keeps order), and every wait bounded
   * by the delivery timeout so a dead broker fails a write instead of hanging it.
   */
  static Map<String, Object> producer(KafkaSinkConfig config, Credentials credentials,
      String clientId) {
    Map<String, Object> p = connection(config, credentials, clientId);
    long timeout = config.deliveryTimeout().toMillis();
    p.put(ProducerConfig.LINGER_MS_CONFIG, (int) LINGER.toMillis());
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout);
    // the client requires delivery.timeout.ms >= linger.ms + request.timeout.ms
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
        (int) Math.min(30_000, timeout - LINGER.toMillis()));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
    p.putAll(config.producerProperties());
    // last, so nothing above can weaken them (the config refuses them in producerProperties too)
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return p;
  }

  /** The admin client of the topic check, bounded by the same delivery timeout. */
  static Map<String, Object> admin(KafkaSinkConfig config, Credentials credentials,
      String clientId) {
    Map<String, Object> p = connection(config, credentials, clientId);
    int timeout = (int) config.deliveryTimeout().toMillis();
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeout);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(30_000, timeout));
    return p;
  }

  private static String jaasEscape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
