package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.kollect.core.ClusterConnectionException;
import org.junit.jupiter.api.Test;

class KubeconfigPolicyTest {

  private static final String TOKEN = "s3cr3t-token-value";

  private static String kubeconfig(String clusterExtra, String userBody) {
    return """
        apiVersion: v1
        kind: Config
        current-context: ctx
        contexts:
          - name: ctx
            context: {cluster: remote, user: someone}
        clusters:
          - name: remote
            cluster:
              server: https://10.0.0.1:6443
        %s
        users:
          - name: someone
            user:
        %s
        """.formatted(clusterExtra, userBody);
  }

  private static String token() {
    return kubeconfig("", "      token: " + TOKEN);
  }

  @Test
  void anInlineTokenKubeconfigPassesTheStrictPolicy() throws Exception {
    Config config = KubeconfigPolicy.strict().clientConfig(token(), "Secret ns/kc key value");
    assertThat(config.getMasterUrl()).startsWith("https://10.0.0.1:6443");
    // A kubeconfig's token is fabric8's "auto" token (refreshed from the kubeconfig's source).
    assertThat(config.getAutoOAuthToken()).isEqualTo(TOKEN);
  }

  @Test
  void anExecPluginIsRefusedNamingTheFieldAndTheFlag() {
    String yaml = kubeconfig("", """
              exec:
                apiVersion: client.authentication.k8s.io/v1beta1
                command: /bin/sh
                args: ["-c", "echo pwned"]
        """);
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(yaml, "Secret ns/kc key value"))
        .isInstanceOfSatisfying(ClusterConnectionException.class, e -> {
          assertThat(e.reason()).isEqualTo("InvalidKubeConfig");
          assertThat(e.getMessage()).isEqualTo("Secret ns/kc key value: users[someone].user.exec: "
              + "runs a program; refused (the operator allows it only with "
              + "--allow-kubeconfig-exec)");
        });
  }

  @Test
  void anAuthProviderIsRefused() {
    String yaml = kubeconfig("", """
              auth-provider:
                name: gcp
        """);
    assertThatThrownBy(() -> KubeconfigPolicy.strict().check(KubeconfigPolicy.parse(yaml, "x"), "x"))
        .hasMessageContaining("users[someone].user.auth-provider: runs a program");
  }

  @Test
  void localFilesAreRefused() {
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(
        kubeconfig("", "      tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"), "x"))
        .hasMessageContaining("users[someone].user.tokenFile: reads a file of the operator");
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(
        kubeconfig("", "      client-certificate: /etc/key.crt\n      client-key: /etc/key.pem"),
        "x"))
        .hasMessageContaining("users[someone].user.client-certificate");
    String caFile = token().replace("server: https://10.0.0.1:6443",
        "server: https://10.0.0.1:6443\n      certificate-authority: /etc/ca.crt");
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(caFile, "x"))
        .hasMessageContaining("clusters[remote].cluster.certificate-authority: reads a file");
  }

  @Test
  void insecureTlsNeedsItsOwnFlag() throws Exception {
    String insecure = token().replace("server: https://10.0.0.1:6443",
        "server: https://10.0.0.1:6443\n      insecure-skip-tls-verify: true");
    assertThatThrownBy(() -> new KubeconfigPolicy(true, false).clientConfig(insecure, "x"))
        .hasMessageContaining("clusters[remote].cluster.insecure-skip-tls-verify: turns TLS "
            + "verification off; refused (the operator allows it only with "
            + "--allow-insecure-kubeconfig-tls)");
    assertThat(new KubeconfigPolicy(false, true).clientConfig(insecure, "x").isTrustCerts())
        .isTrue();
  }

  @Test
  void theExecFlagAllowsProgramsAndFiles() throws Exception {
    String yaml = kubeconfig("", "      tokenFile: /nonexistent/token");
    new KubeconfigPolicy(true, false).check(KubeconfigPolicy.parse(yaml, "x"), "x");
  }

  @Test
  void onlyTheCurrentContextsUserIsChecked() throws Exception {
    String yaml = token() + """
          - name: unused
            user:
              exec: {command: /bin/sh}
        """;
    KubeconfigPolicy.strict().check(KubeconfigPolicy.parse(yaml, "x"), "x");
  }

  @Test
  void brokenKubeconfigsNameWhatIsMissingAndNeverQuoteTheDocument() {
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig("", "Secret a/b key value"))
        .hasMessage("Secret a/b key value: is empty");
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(
        "token: " + TOKEN + "\n  : [", "Secret a/b key value"))
        .isInstanceOf(ClusterConnectionException.class)
        .message().doesNotContain(TOKEN);
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(
        token().replace("current-context: ctx", "current-context: other"), "x"))
        .hasMessage("x: current-context: context \"other\" is not defined");
    assertThatThrownBy(() -> KubeconfigPolicy.strict().clientConfig(
        token().replace("server: https://10.0.0.1:6443", "server: \"\""), "x"))
        .hasMessage("x: clusters[remote].cluster.server: is missing");
  }
}
