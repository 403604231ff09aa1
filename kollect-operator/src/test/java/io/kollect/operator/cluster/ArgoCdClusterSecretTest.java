package io.kollect.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgoCdClusterSecretTest {

  private static final String TOKEN = "argo-bearer-token";

  @Test
  void aBearerTokenSecretBecomesAClientConfiguration() throws Exception {
    Config config = ArgoCdClusterSecret.clientConfig(Map.of(
        "name", "prod-eu-1",
        "server", "https://prod.example:6443",
        "config", "{\"bearerToken\":\"" + TOKEN + "\",\"tlsClientConfig\":{\"caData\":\"Q0E=\","
            + "\"insecure\":false}}"), "Secret argocd/cluster-prod", KubeconfigPolicy.strict());
    assertThat(config.getMasterUrl()).startsWith("https://prod.example:6443");
    assertThat(config.getOauthToken()).isEqualTo(TOKEN);
    assertThat(config.getCaCertData()).isEqualTo("Q0E=");
    assertThat(config.isTrustCerts()).isFalse();
  }

  @Test
  void clientCertificatesAreTakenAsBase64Pem() throws Exception {
    Config config = ArgoCdClusterSecret.clientConfig(Map.of(
        "server", "https://prod.example:6443",
        "config", "{\"tlsClientConfig\":{\"certData\":\"Q0VSVA==\",\"keyData\":\"S0VZ\"}}"),
        "s", KubeconfigPolicy.strict());
    assertThat(config.getClientCertData()).isEqualTo("Q0VSVA==");
    assertThat(config.getClientKeyData()).isEqualTo("S0VZ");
  }

  @Test
  void insecureFollowsTheKubeconfigPolicy() throws Exception {
    Map<String, String> data = Map.of("server", "https://prod.example:6443",
        "config", "{\"bearerToken\":\"t\",\"tlsClientConfig\":{\"insecure\":true}}");
    assertThatThrownBy(() -> ArgoCdClusterSecret.clientConfig(data, "Secret argocd/c",
        KubeconfigPolicy.strict()))
        .hasMessageContaining("Secret argocd/c: key config: tlsClientConfig.insecure: turns TLS "
            + "verification off; refused");
    assertThat(ArgoCdClusterSecret.clientConfig(data, "s", new KubeconfigPolicy(false, true))
        .isTrustCerts()).isTrue();
  }

  @Test
  void programsAreRefusedAndBadInputIsNamedWithoutQuotingIt() {
    assertThatThrownBy(() -> ArgoCdClusterSecret.clientConfig(Map.of("server", "https://x:1",
        "config", "{\"execProviderConfig\":{\"command\":\"argocd-k8s-auth\"}}"), "s",
        new KubeconfigPolicy(true, true)))
        .hasMessageContaining("key config: execProviderConfig: runs a program");
    assertThatThrownBy(() -> ArgoCdClusterSecret.clientConfig(Map.of("config", "{}"), "s",
        KubeconfigPolicy.strict())).hasMessage("s: key server: is missing");
    assertThatThrownBy(() -> ArgoCdClusterSecret.clientConfig(Map.of("server", "https://x:1",
        "config", "{\"bearerToken\": \"" + TOKEN + "\""), "s", KubeconfigPolicy.strict()))
        .hasMessage("s: key config: is not JSON")
        .message().doesNotContain(TOKEN);
  }
}
