/**
 * Other clusters: KollectClusters and {@code --cluster} files into the engine ({@link
 * io.kollect.operator.cluster.ClusterFeed}), which clusters each target reads ({@link
 * io.kollect.operator.cluster.ClusterCatalog}), how a cluster's client is built and what its
 * kubeconfig may ask ({@link io.kollect.operator.cluster.KollectClusterConnections}, {@link
 * io.kollect.operator.cluster.KubeconfigPolicy}, Argo CD cluster Secrets), and a KollectCluster's
 * status. The {@code kollect run} cluster flags are {@link
 * io.kollect.operator.cluster.ClusterSettings}.
 */
package io.kollect.operator.cluster;
