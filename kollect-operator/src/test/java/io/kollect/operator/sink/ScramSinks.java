package io.kollect.operator.sink;

/**
 * The YAML of kafka KollectSinks that authenticate with SASL SCRAM-SHA-512 and of the Secrets
 * they read, as the SASL tests create them. Each text is one document followed by a separator, so
 * more YAML may follow.
 */
final class ScramSinks {

  private ScramSinks() {
  }

  /** A Secret {@code name} in {@code namespace} whose {@code stringData} is {@code {data}}. */
  static String secret(String namespace, String name, String data) {
    return """
        apiVersion: v1
        kind: Secret
        metadata: {name: %s, namespace: %s}
        stringData: {%s}
        ---
        """.formatted(name, namespace, data);
  }

  /**
   * A KollectSink {@code name} of type kafka on {@code bootstrap}, its {@code topic} created with
   * one partition, authenticating with the Secret of {@code secretRef} (the body of the flow map),
   * with {@code extra} lines under {@code kafka} (none when empty).
   */
  static String sink(String namespace, String name, String bootstrap, String topic, String extra,
      String secretRef) {
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: %s, namespace: %s}
        spec:
          type: kafka
          kafka:
            bootstrapServers: ["%s"]
            topic: %s
            createTopic: {partitions: 1, replicationFactor: 1}
        %s    sasl: {mechanism: SCRAM-SHA-512, secretRef: {%s}}
        ---
        """.formatted(name, namespace, bootstrap, topic,
        extra.isEmpty() ? "" : "    " + extra + "\n", secretRef);
  }
}
