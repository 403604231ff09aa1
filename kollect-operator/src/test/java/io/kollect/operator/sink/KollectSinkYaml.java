package io.kollect.operator.sink;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.kollect.operator.crd.KollectSink;

/** KollectSinks as a user writes them, for the translation tests that need no API server. */
final class KollectSinkYaml {

  private KollectSinkYaml() {
  }

  /** The KollectSink {@code namespace/name} whose {@code spec} is the YAML block {@code spec}. */
  static KollectSink parse(String namespace, String name, String spec) {
    return Serialization.unmarshal("""
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata: {name: %s, namespace: %s}
        spec:
        %s
        """.formatted(name, namespace, spec.indent(2)), KollectSink.class);
  }
}
