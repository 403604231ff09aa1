package io.kollect.operator.cluster;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.core.ClusterConnectionException;
import io.kollect.core.ClusterConnections;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's {@link ClusterConnections}: a cluster's client from its KollectCluster's Secret
 * (read afresh on every open, as Flux does, so a rotation is picked up by {@code
 * KollectEngine#clusterChanged}) or from a {@code --cluster} file, checked against the kubeconfig
 * policy, on the shared client stack of {@link RemoteClients}.
 *
 * <p>It remembers a fingerprint (a SHA-256 of the Secret's data) of what each open client was
 * built from, so a Secret event that changed nothing (a label, an annotation) does not rebuild
 * the client. Messages name Secrets, keys and fields, never a value.
 */
public final class KollectClusterConnections implements ClusterConnections {

  /** The kubeconfig keys tried in order when a Secret ref names none (Flux, Cluster API). */
  static final String[] DEFAULT_KEYS = {"value", "value.yaml"};

  private final KubernetesClient local;
  private final ClusterCatalog catalog;
  private final KubeconfigPolicy secretPolicy;
  private final RemoteClients clients;
  /** What each cluster's current client was built from. */
  private final Map<String, String> fingerprints = new ConcurrentHashMap<>();

  /**
   * @param local the operator's own client, which reads the Secrets
   * @param secretPolicy what kubeconfigs from Secrets may do ({@code --cluster} files are
   *     trusted: programs, files and insecure TLS are allowed there)
   */
  public KollectClusterConnections(KubernetesClient local, ClusterCatalog catalog,
      KubeconfigPolicy secretPolicy, RemoteClients clients) {
    this.local = local;
    this.catalog = catalog;
    this.secretPolicy = secretPolicy;
    this.clients = clients;
  }

  @Override
  public KubernetesClient open(String cluster) throws ClusterConnectionException {
    ClusterCatalog.Source source = catalog.source(cluster);
    Resolved resolved = resolve(source);
    fingerprints.put(cluster, resolved.fingerprint());
    return clients.client(resolved.config());
  }

  @Override
  public void release(String cluster, KubernetesClient client) {
    client.close();
  }

  /** A client configuration and the fingerprint of what it was built from. */
  record Resolved(Config config, String fingerprint) {}

  /**
   * The client configuration of a source, checked against the policy.
   *
   * @throws ClusterConnectionException {@code InvalidKubeConfig} naming the Secret, key or field
   */
  Resolved resolve(ClusterCatalog.Source source) throws ClusterConnectionException {
    if (source.fromFile()) {
      String yaml;
      try {
        yaml = Files.readString(source.file());
      } catch (IOException e) {
        throw KubeconfigPolicy.invalid("--cluster " + source.cluster() + ": cannot read "
            + source.file() + ": " + e.getClass().getSimpleName());
      }
      Config config = new KubeconfigPolicy(true, true).clientConfig(yaml,
          "--cluster " + source.cluster() + " (" + source.file() + ")");
      return new Resolved(config, fingerprint(Map.of("file", yaml)));
    }
    Secret secret = readSecret(source);
    Map<String, String> data = decode(secret);
    String where = source.owner() + ": " + source.secret();
    if (source.argoCd()) {
      return new Resolved(ArgoCdClusterSecret.clientConfig(data, where, secretPolicy),
          fingerprint(data));
    }
    String key = source.key();
    String yaml = null;
    if (key != null && !key.isBlank()) {
      yaml = data.get(key);
      if (yaml == null) {
        throw KubeconfigPolicy.invalid(where + " has no key " + key);
      }
    } else {
      for (String k : DEFAULT_KEYS) {
        if (data.containsKey(k)) {
          key = k;
          yaml = data.get(k);
          break;
        }
      }
      if (yaml == null) {
        throw KubeconfigPolicy.invalid(where + " has neither key value nor value.yaml");
      }
    }
    return new Resolved(secretPolicy.clientConfig(yaml, where + " key " + key),
        fingerprint(data));
  }

  /**
   * Whether the Secret now differs from what the cluster's client was built from (or the cluster
   * has no client yet), i.e. whether {@code clusterChanged} is worth its relist.
   */
  boolean changedSince(String cluster, Secret now) {
    String before = fingerprints.get(cluster);
    return before == null || now == null || !before.equals(fingerprint(decode(now)));
  }

  /** Forgets a released cluster's fingerprint. */
  void forget(String cluster) {
    fingerprints.remove(cluster);
  }

  private Secret readSecret(ClusterCatalog.Source source) throws ClusterConnectionException {
    Secret secret;
    try {
      secret = local.secrets().inNamespace(source.secretNamespace())
          .withName(source.secretName()).get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        throw new ClusterConnectionException(ClusterConnectionException.REASON_FORBIDDEN,
            source.owner() + ": the operator may not read " + source.secret()
                + " (see deploy/rbac)");
      }
      throw new ClusterConnectionException("Unreachable", source.owner() + ": cannot read "
          + source.secret() + ": HTTP " + e.getCode());
    }
    if (secret == null) {
      throw KubeconfigPolicy.invalid(source.owner() + ": " + source.secret() + " does not exist");
    }
    return secret;
  }

  /** A Secret's values by key, decoded (data as base64, stringData as written). */
  static Map<String, String> decode(Secret secret) {
    Map<String, String> out = new TreeMap<>();
    if (secret.getData() != null) {
      secret.getData().forEach((k, v) -> {
        if (v != null) {
          try {
            out.put(k, new String(Base64.getDecoder().decode(v.strip()), StandardCharsets.UTF_8));
          } catch (IllegalArgumentException e) {
            out.put(k, "");
          }
        }
      });
    }
    if (secret.getStringData() != null) {
      secret.getStringData().forEach((k, v) -> out.putIfAbsent(k, v == null ? "" : v));
    }
    return out;
  }

  static String fingerprint(Map<String, String> data) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      new TreeMap<>(data).forEach((k, v) -> {
        sha.update(k.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(v.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      });
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The fingerprint of a Secret as it is now, if it exists. */
  static Optional<String> fingerprint(Secret secret) {
    return secret == null ? Optional.empty() : Optional.of(fingerprint(decode(secret)));
  }
}
