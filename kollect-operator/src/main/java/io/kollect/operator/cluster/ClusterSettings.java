package io.kollect.operator.cluster;

import io.kollect.operator.SettingRules;
import io.kollect.operator.crd.KollectClusterSpec;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Which clusters the operator reads: its own, by name, and others; the {@code kollect run} flags
 * map onto these one to one.
 *
 * @param clusterName the operator's own cluster, the {@code cluster} of every record ({@code
 *     --cluster-name}); no other cluster may take this name
 * @param secretNamespaces namespaces whose Secrets any KollectCluster may name with {@code
 *     secretRef.namespace} ({@code --cluster-secret-namespaces}, e.g. {@code argocd})
 * @param allowKubeconfigExec kubeconfigs from Secrets may run programs ({@code exec}, {@code
 *     auth-provider}) and read the operator's files ({@code --allow-kubeconfig-exec})
 * @param allowInsecureKubeconfigTls kubeconfigs from Secrets may turn TLS verification off
 *     ({@code --allow-insecure-kubeconfig-tls})
 * @param files clusters from the operator's own kubeconfig files by name ({@code --cluster
 *     NAME=FILE}); trusted, so programs are allowed there
 */
public record ClusterSettings(String clusterName, Set<String> secretNamespaces,
    boolean allowKubeconfigExec, boolean allowInsecureKubeconfigTls, Map<String, Path> files) {

  private static final Pattern NAME = Pattern.compile(KollectClusterSpec.CLUSTER_NAME);

  public ClusterSettings {
    Objects.requireNonNull(clusterName, "clusterName");
    secretNamespaces = SettingRules.namespaces(secretNamespaces, "--cluster-secret-namespaces");
    files = Map.copyOf(new TreeMap<>(files));
    files.keySet().forEach(ClusterSettings::requireClusterName);
    if (files.containsKey(clusterName)) {
      throw new IllegalArgumentException("--cluster: '" + clusterName + "' is the operator's own "
          + "cluster (--cluster-name); choose another name");
    }
  }

  /**
   * The own cluster {@code clusterName} only: no Secret namespace beyond a KollectCluster's own,
   * strict kubeconfigs.
   */
  public static ClusterSettings of(String clusterName) {
    return new ClusterSettings(clusterName, Set.of(), false, false, Map.of());
  }

  /** These settings with the own cluster named {@code clusterName}. */
  public ClusterSettings named(String clusterName) {
    return new ClusterSettings(clusterName, secretNamespaces, allowKubeconfigExec,
        allowInsecureKubeconfigTls, files);
  }

  private static void requireClusterName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("--cluster: '" + name + "' is not a cluster name "
          + "(lower-case letters, digits, '-' and '.')");
    }
  }

  /**
   * The clusters of {@code --cluster NAME=KUBECONFIG_FILE} values: each name once, each file a
   * readable kubeconfig whose current context names a cluster with a server.
   *
   * @throws IllegalArgumentException one line naming the flag and what is wrong
   */
  public static Map<String, Path> clusterFiles(java.util.List<String> values) {
    Map<String, Path> out = new TreeMap<>();
    for (String value : values) {
      int eq = value.indexOf('=');
      if (eq <= 0 || eq == value.length() - 1) {
        throw new IllegalArgumentException("--cluster: '" + value + "' is not "
            + "NAME=KUBECONFIG_FILE");
      }
      String name = value.substring(0, eq);
      Path file = Path.of(value.substring(eq + 1));
      // Before the file is read, so that a bad name is what the message names.
      requireClusterName(name);
      if (out.containsKey(name)) {
        throw new IllegalArgumentException("--cluster: " + name + " is given twice");
      }
      String yaml;
      try {
        yaml = java.nio.file.Files.readString(file);
      } catch (java.io.IOException | RuntimeException e) {
        throw new IllegalArgumentException("--cluster: " + name + ": " + file
            + " does not exist or is not readable");
      }
      try {
        new KubeconfigPolicy(true, true).check(KubeconfigPolicy.parse(yaml, file.toString()),
            file.toString());
      } catch (io.kollect.core.ClusterConnectionException e) {
        throw new IllegalArgumentException("--cluster: " + name + ": " + e.getMessage());
      }
      out.put(name, file);
    }
    return out;
  }

  /** The kubeconfig policy for kubeconfigs from Secrets. */
  public KubeconfigPolicy secretPolicy() {
    return new KubeconfigPolicy(allowKubeconfigExec, allowInsecureKubeconfigTls);
  }
}
