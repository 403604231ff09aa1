package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * {@code KollectCluster.spec}: one of {@code kubeConfig} and {@code argoCDSecretRef}.
 *
 * @param clusterName the {@code cluster} value of records read from it (default {@code
 *     metadata.name}); unique per operator, never the operator's own {@code --cluster-name}
 * @param kubeConfig a kubeconfig in a Secret (Flux's and Cluster API's layout)
 * @param argoCDSecretRef an Argo CD cluster Secret
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectClusterSpec(
    @Pattern(CLUSTER_NAME)
        @JsonPropertyDescription("The cluster value of records read from this cluster (default: "
            + "metadata.name). Unique per operator; no '/'; the operator's own --cluster-name is "
            + "reserved.")
        String clusterName,
    @JsonPropertyDescription("A kubeconfig in a Secret (keys value, then value.yaml, as Flux "
        + "and Cluster API write them).")
        KubeConfig kubeConfig,
    @JsonProperty("argoCDSecretRef")
        @JsonPropertyDescription("An Argo CD cluster Secret (keys name, server, config), instead "
            + "of kubeConfig.")
        SecretRef argoCDSecretRef) {

  /** What a cluster name may be: a DNS subdomain-like name (so never a '/' or ':'). */
  public static final String CLUSTER_NAME =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /**
   * {@code spec.kubeConfig}.
   *
   * @param secretRef the Secret holding the kubeconfig
   */
  public record KubeConfig(@Required SecretRef secretRef) {}

  /**
   * A Secret, in the KollectCluster's namespace unless {@code namespace} names one the operator
   * trusts ({@code --cluster-secret-namespaces}).
   *
   * @param name the Secret's name
   * @param key the key holding the kubeconfig (default: {@code value}, then {@code value.yaml});
   *     not used for Argo CD Secrets
   * @param namespace the Secret's namespace (default: the KollectCluster's); another one must be
   *     listed in the operator's {@code --cluster-secret-namespaces}
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SecretRef(
      @Required @JsonPropertyDescription("Name of the Secret.") String name,
      @JsonPropertyDescription("Key of the kubeconfig (default: value, then value.yaml).")
          String key,
      @JsonPropertyDescription("Namespace of the Secret (default: the KollectCluster's). Another "
          + "namespace must be listed in the operator's --cluster-secret-namespaces.")
          String namespace) {

    public SecretRef(String name, String key) {
      this(name, key, null);
    }
  }
}
