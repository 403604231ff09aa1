package io.kollect.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * The fixed benchmark shape of the operator-at-scale runs: ConfigMaps with two data keys (~100 bytes together) and
 * one label, spread over 20 namespaces; one KollectProfile of two fields (one of them the change
 * stamp); targets, sinks and profile live in {@link #CONTROL_NAMESPACE}, which the operator is told
 * to trust ({@code --cluster-wide-namespaces}) so a target reads every namespace. With {@code
 * --owner-references} every object also names an owner, as a ReplicaSet's Pods do.
 */
final class Fixture {

  static final String CONTROL_NAMESPACE = "kollect-bench";
  static final int NAMESPACES = 20;
  static final String PROFILE = "bench";
  static final String LABEL = "app.kubernetes.io/part-of";
  /** 72 characters: with the 16-digit stamp and the two key names ("payload", "stamp"), 100 bytes of data. */
  static final String PAYLOAD = "x".repeat(72);
  static final String NAME_PREFIX = "cm-";
  /** Objects of one namespace that share an owner with a bare {@code --owner-references}. */
  static final int OBJECTS_PER_OWNER = 10;
  /**
   * A namespace with one ConfigMap (not a fixture name) for the start-up constant: the time from
   * the operator's start to the record of a one-object target.
   */
  static final String CALIBRATION_NAMESPACE = "kollect-bench-calibration";
  static final String CALIBRATION_NAME = "calibration";

  private Fixture() {}

  static List<String> namespaces() {
    return IntStream.range(0, NAMESPACES).mapToObj(Fixture::namespace).toList();
  }

  static String namespace(int index) {
    return String.format("bench-%02d", index % NAMESPACES);
  }

  static String name(int index) {
    return String.format(NAME_PREFIX + "%06d", index);
  }

  /** Object {@code index}: namespace {@code index % 20}, stamp 0 (not a change), no owner. */
  static String configMapJson(int index) {
    return configMapJson(index, 0);
  }

  /**
   * Object {@code index}; with {@code objectsPerOwner} above zero, one owner reference as a
   * ReplicaSet's Pod carries, shared by that many objects of its namespace (1: an owner of its own,
   * as a Job's Pod has). The owners do not exist: the runner's API server has no garbage collector
   * to delete what they own.
   */
  static String configMapJson(int index, int objectsPerOwner) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name(index)
        + "\",\"namespace\":\"" + namespace(index) + "\",\"labels\":{\"" + LABEL + "\":\"kollect-bench\"}"
        + (objectsPerOwner > 0 ? ",\"ownerReferences\":[" + ownerReferenceJson(index, objectsPerOwner) + "]" : "")
        + "},\"data\":{\"payload\":\"" + PAYLOAD + "\",\"stamp\":\"" + stampText(0) + "\"}}";
  }

  /** The owner of object {@code index}: the same for {@code objectsPerOwner} objects of its namespace. */
  static String ownerReferenceJson(int index, int objectsPerOwner) {
    String owner = String.format("rs-%06d", index / (NAMESPACES * objectsPerOwner));
    UUID uid = UUID.nameUUIDFromBytes((namespace(index) + "/" + owner).getBytes(StandardCharsets.UTF_8));
    return "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"" + owner + "\",\"uid\":\""
        + uid + "\",\"controller\":true,\"blockOwnerDeletion\":true}";
  }

  static String calibrationConfigMapJson() {
    return configMapJson(0).replace(name(0), CALIBRATION_NAME).replace(namespace(0), CALIBRATION_NAMESPACE);
  }

  /** A merge patch that sets the stamp: a change the profile extracts. */
  static String stampPatch(long stamp) {
    return "{\"data\":{\"stamp\":\"" + stampText(stamp) + "\"}}";
  }

  /** Fixed width, so a change never changes the object's size. */
  static String stampText(long stamp) {
    return String.format("%016x", stamp);
  }

  static long parseStamp(String text) {
    if (text == null || text.length() != 16) {
      return 0;
    }
    try {
      return Long.parseUnsignedLong(text, 16);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  static String profileYaml() {
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectProfile
        metadata:
          name: %s
        spec:
          resources:
            - version: v1
              kind: ConfigMap
              fields:
                - name: payload
                  path: "{.data.payload}"
                - name: stamp
                  path: "{.data.stamp}"
        """.formatted(PROFILE);
  }

  /** An http sink to the runner's receiver: linger 0 (every record goes out at once), no heartbeat. */
  static String httpSinkYaml(String name, String url) {
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata:
          name: %s
          namespace: %s
        spec:
          type: http
          http:
            url: %s
          batch:
            maxSize: 500
            linger: 0s
          heartbeatInterval: 0s
        """.formatted(name, CONTROL_NAMESPACE, url);
  }

  static String fileSinkYaml(String name, String path) {
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectSink
        metadata:
          name: %s
          namespace: %s
        spec:
          type: file
          file:
            path: %s
          batch:
            linger: 0s
          heartbeatInterval: 0s
        """.formatted(name, CONTROL_NAMESPACE, path);
  }

  /** A target over all namespaces (or only {@code namespace} when given), no KollectInventory. */
  static String targetYaml(String name, List<String> sinks, String namespace) {
    String scope = namespace == null ? "" : "  scope:\n    namespaces: [" + namespace + "]\n";
    return """
        apiVersion: kollect.io/v1alpha1
        kind: KollectTarget
        metadata:
          name: %s
          namespace: %s
        spec:
          profileRef: %s
        %s  sinkRefs: [%s]
          writeInventory: false
        """.formatted(name, CONTROL_NAMESPACE, PROFILE, scope, String.join(", ", sinks));
  }
}
