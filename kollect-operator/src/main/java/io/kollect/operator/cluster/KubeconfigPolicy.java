package io.kollect.operator.cluster;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kollect.core.ClusterConnectionException;
import java.util.List;
import java.util.Objects;

/**
 * What a kubeconfig may ask of the operator, and the client configuration of one that passes.
 *
 * <p>A kubeconfig from a Secret is written by whoever may write Secrets in a namespace, not by
 * whoever runs the operator. As Flux does ({@code --insecure-kubeconfig-exec}), it may not make
 * the operator run a program ({@code exec}, {@code auth-provider}) or read the operator's own
 * files ({@code tokenFile}, {@code client-certificate}, {@code client-key}, {@code
 * certificate-authority} paths: a service account token or key in the pod) unless the operator
 * allows it ({@code --allow-kubeconfig-exec}), nor turn TLS verification off ({@code
 * insecure-skip-tls-verify}) unless {@code --allow-insecure-kubeconfig-tls}. Only the current
 * context's cluster and user are used, so only they are checked.
 *
 * <p>A refusal is a {@link ClusterConnectionException} with reason {@code InvalidKubeConfig} whose
 * message names the field and the flag; messages never quote a value of the kubeconfig.
 *
 * @param allowExec programs and local files allowed ({@code --allow-kubeconfig-exec}; always for
 *     the operator's own {@code --cluster} files)
 * @param allowInsecureTls {@code insecure-skip-tls-verify} allowed
 */
record KubeconfigPolicy(boolean allowExec, boolean allowInsecureTls) {

  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  /** The defaults: nothing but inline credentials and verified TLS. */
  static KubeconfigPolicy strict() {
    return new KubeconfigPolicy(false, false);
  }

  /**
   * The client configuration of a kubeconfig that passes the policy.
   *
   * @param where what the kubeconfig is, for messages (e.g. {@code Secret ns/name key value})
   * @throws ClusterConnectionException reason {@code InvalidKubeConfig}, naming the field
   */
  Config clientConfig(String kubeconfig, String where) throws ClusterConnectionException {
    io.fabric8.kubernetes.api.model.Config parsed = parse(kubeconfig, where);
    check(parsed, where);
    try {
      return Config.fromKubeconfig(kubeconfig);
    } catch (KubernetesClientException | IllegalArgumentException e) {
      throw invalid(where + ": cannot be used: " + e.getClass().getSimpleName());
    }
  }

  static io.fabric8.kubernetes.api.model.Config parse(String kubeconfig, String where)
      throws ClusterConnectionException {
    if (kubeconfig == null || kubeconfig.isBlank()) {
      throw invalid(where + ": is empty");
    }
    try {
      io.fabric8.kubernetes.api.model.Config parsed =
          YAML.unmarshal(kubeconfig, io.fabric8.kubernetes.api.model.Config.class);
      if (parsed == null) {
        throw invalid(where + ": is not a kubeconfig");
      }
      return parsed;
    } catch (RuntimeException e) {
      // The parser's message may quote the document (a credential): never pass it on.
      throw invalid(where + ": is not a kubeconfig (not YAML of kind Config)");
    }
  }

  /**
   * Checks the current context's cluster and user.
   *
   * @throws ClusterConnectionException naming the first field the policy refuses
   */
  void check(io.fabric8.kubernetes.api.model.Config kubeconfig, String where)
      throws ClusterConnectionException {
    String current = kubeconfig.getCurrentContext();
    List<NamedContext> contexts = orEmpty(kubeconfig.getContexts());
    NamedContext context = contexts.stream().filter(c -> Objects.equals(c.getName(), current))
        .findFirst().orElse(current == null || current.isBlank() ? first(contexts) : null);
    if (context == null || context.getContext() == null) {
      throw invalid(where + ": current-context: "
          + (current == null || current.isBlank() ? "not set" : "context \"" + current
              + "\" is not defined"));
    }
    String clusterName = context.getContext().getCluster();
    NamedCluster named = orEmpty(kubeconfig.getClusters()).stream()
        .filter(c -> Objects.equals(c.getName(), clusterName)).findFirst().orElse(null);
    if (named == null || named.getCluster() == null) {
      throw invalid(where + ": contexts[" + context.getName() + "].context.cluster: cluster \""
          + clusterName + "\" is not defined");
    }
    checkCluster(named, where);
    String userName = context.getContext().getUser();
    if (userName == null || userName.isBlank()) {
      return;
    }
    NamedAuthInfo namedUser = orEmpty(kubeconfig.getUsers()).stream()
        .filter(u -> Objects.equals(u.getName(), userName)).findFirst().orElse(null);
    if (namedUser == null || namedUser.getUser() == null) {
      throw invalid(where + ": contexts[" + context.getName() + "].context.user: user \""
          + userName + "\" is not defined");
    }
    if (!allowExec) {
      checkUser(namedUser, where);
    }
  }

  private void checkCluster(NamedCluster named, String where) throws ClusterConnectionException {
    Cluster cluster = named.getCluster();
    String c = "clusters[" + named.getName() + "].cluster.";
    if (cluster.getServer() == null || cluster.getServer().isBlank()) {
      throw invalid(where + ": " + c + "server: is missing");
    }
    if (!allowExec && cluster.getCertificateAuthority() != null
        && !cluster.getCertificateAuthority().isBlank()) {
      throw refused(where, c + "certificate-authority", "reads a file of the operator",
          "--allow-kubeconfig-exec");
    }
    if (!allowInsecureTls && Boolean.TRUE.equals(cluster.getInsecureSkipTlsVerify())) {
      throw refused(where, c + "insecure-skip-tls-verify", "turns TLS verification off",
          "--allow-insecure-kubeconfig-tls");
    }
  }

  /** A user that runs a program or reads the operator's files is refused (no exec allowed). */
  private static void checkUser(NamedAuthInfo namedUser, String where)
      throws ClusterConnectionException {
    AuthInfo user = namedUser.getUser();
    String u = "users[" + namedUser.getName() + "].user.";
    if (user.getExec() != null) {
      throw refused(where, u + "exec", "runs a program", "--allow-kubeconfig-exec");
    }
    if (user.getAuthProvider() != null) {
      throw refused(where, u + "auth-provider", "runs a program", "--allow-kubeconfig-exec");
    }
    if (present(user.getTokenFile())) {
      throw refused(where, u + "tokenFile", "reads a file of the operator",
          "--allow-kubeconfig-exec");
    }
    if (present(user.getClientCertificate())) {
      throw refused(where, u + "client-certificate", "reads a file of the operator",
          "--allow-kubeconfig-exec");
    }
    if (present(user.getClientKey())) {
      throw refused(where, u + "client-key", "reads a file of the operator",
          "--allow-kubeconfig-exec");
    }
  }

  private static boolean present(String s) {
    return s != null && !s.isBlank();
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static <T> T first(List<T> list) {
    return list.size() == 1 ? list.get(0) : null;
  }

  static ClusterConnectionException refused(String where, String field, String what,
      String flag) {
    return invalid(where + ": " + field + ": " + what + "; refused (the operator allows it only "
        + "with " + flag + ")");
  }

  static ClusterConnectionException invalid(String message) {
    return new ClusterConnectionException(ClusterConnectionException.REASON_INVALID_KUBECONFIG,
        message);
  }
}
