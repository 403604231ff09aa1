package io.kollect.operator.cli;

import io.kollect.operator.cluster.ClusterSettings;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * The cluster flags of {@code kollect run}, its own cluster's name and the others: they make its
 * {@link ClusterSettings}.
 */
final class ClusterOptions {

  @Option(names = "--cluster-name", paramLabel = "NAME", defaultValue = "default",
      description = "Cluster name written into every record (default: ${DEFAULT-VALUE}).")
  String clusterName;

  @Option(names = "--cluster", paramLabel = "NAME=KUBECONFIG_FILE",
      description = "Also read the cluster of this kubeconfig file (trusted: exec plugins are "
          + "allowed); targets in trusted namespaces pick it with clusterRef: {name: NAME}. "
          + "Repeatable.")
  List<String> clusters = List.of();

  @Option(names = "--cluster-secret-namespaces", paramLabel = "NS", split = ",",
      description = "KollectClusters of any namespace may name Secrets of these namespaces "
          + "(secretRef.namespace), e.g. argocd for Argo CD cluster Secrets (default: none; a "
          + "KollectCluster reads Secrets of its own namespace).")
  List<String> clusterSecretNamespaces = List.of();

  @Option(names = "--allow-kubeconfig-exec",
      description = "Kubeconfigs from Secrets may run programs (exec, auth-provider) and read "
          + "the operator's files (tokenFile, certificate and key paths). Default: refused.")
  boolean allowKubeconfigExec;

  @Option(names = "--allow-insecure-kubeconfig-tls",
      description = "Kubeconfigs from Secrets may turn TLS verification off "
          + "(insecure-skip-tls-verify). Default: refused.")
  boolean allowInsecureKubeconfigTls;

  /**
   * The settings; a bad value, or a {@code --cluster} named as the operator's own cluster, is bad
   * input (exit 2) before anything connects.
   */
  ClusterSettings settings() {
    try {
      return new ClusterSettings(clusterName, Set.copyOf(clusterSecretNamespaces),
          allowKubeconfigExec, allowInsecureKubeconfigTls, ClusterSettings.clusterFiles(clusters));
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }
}
