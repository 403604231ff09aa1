package io.kollect.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A remote cluster the operator may read, from a kubeconfig Secret or an Argo CD cluster Secret.
 * Namespaced: targets use only the KollectClusters of their own namespace.
 */
@Group(KollectProfile.GROUP)
@Version(KollectProfile.VERSION)
@ShortNames("kcluster")
@AdditionalPrinterColumn(name = "Cluster", jsonPath = ".status.clusterName")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason")
@AdditionalPrinterColumn(name = "Version", jsonPath = ".status.serverVersion")
@AdditionalPrinterColumn(name = "Status", jsonPath = ".status.conditions[?(@.type==\"Ready\")].message", priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class KollectCluster extends CustomResource<KollectClusterSpec, KollectClusterStatus>
    implements Namespaced {}
