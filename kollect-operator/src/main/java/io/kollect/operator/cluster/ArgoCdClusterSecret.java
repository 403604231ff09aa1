package io.kollect.operator.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.kollect.core.ClusterConnectionException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * An Argo CD cluster Secret (label {@code argocd.argoproj.io/secret-type: cluster}) as a client
 * configuration: key {@code server} is the API server's URL, key {@code config} a JSON object with
 * {@code bearerToken}, or {@code username}/{@code password}, and {@code tlsClientConfig {caData,
 * certData, keyData, insecure, serverName}} (the {@code *Data} values base64 PEM, as Argo CD
 * writes them). Argo CD's {@code execProviderConfig} and {@code awsAuthConfig} run programs; they
 * are refused. {@code insecure: true} follows the same policy as a kubeconfig's {@code
 * insecure-skip-tls-verify}.
 */
final class ArgoCdClusterSecret {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ArgoCdClusterSecret() {}

  /**
   * The client configuration of the Secret's data (decoded values by key).
   *
   * @param where what the Secret is, for messages
   * @throws ClusterConnectionException reason {@code InvalidKubeConfig}, naming the key and field
   */
  static Config clientConfig(Map<String, String> data, String where, KubeconfigPolicy policy)
      throws ClusterConnectionException {
    String server = data.get("server");
    if (server == null || server.isBlank()) {
      throw KubeconfigPolicy.invalid(where + ": key server: is missing");
    }
    try {
      URI uri = URI.create(server.strip());
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw KubeconfigPolicy.invalid(where + ": key server: is not a URL");
      }
    } catch (IllegalArgumentException e) {
      throw KubeconfigPolicy.invalid(where + ": key server: is not a URL");
    }
    String configJson = data.get("config");
    if (configJson == null || configJson.isBlank()) {
      throw KubeconfigPolicy.invalid(where + ": key config: is missing");
    }
    JsonNode config;
    try {
      config = JSON.readTree(configJson);
    } catch (IOException e) {
      // Jackson's message quotes the input (a token): never pass it on.
      throw KubeconfigPolicy.invalid(where + ": key config: is not JSON");
    }
    if (config == null || !config.isObject()) {
      throw KubeconfigPolicy.invalid(where + ": key config: is not a JSON object");
    }
    for (String runsProgram : new String[] {"execProviderConfig", "awsAuthConfig"}) {
      if (config.hasNonNull(runsProgram)) {
        throw KubeconfigPolicy.invalid(where + ": key config: " + runsProgram
            + ": runs a program; not supported for Argo CD Secrets (use a kubeconfig Secret)");
      }
    }
    JsonNode tls = config.path("tlsClientConfig");
    boolean insecure = tls.path("insecure").asBoolean(false);
    if (insecure && !policy.allowInsecureTls()) {
      throw KubeconfigPolicy.refused(where, "key config: tlsClientConfig.insecure",
          "turns TLS verification off", "--allow-insecure-kubeconfig-tls");
    }
    ConfigBuilder b = new ConfigBuilder(Config.empty()).withMasterUrl(server.strip());
    text(config, "bearerToken").ifPresent(b::withOauthToken);
    text(config, "username").ifPresent(b::withUsername);
    text(config, "password").ifPresent(b::withPassword);
    text(tls, "caData").ifPresent(b::withCaCertData);
    text(tls, "certData").ifPresent(b::withClientCertData);
    text(tls, "keyData").ifPresent(b::withClientKeyData);
    if (text(tls, "certData").isPresent() != text(tls, "keyData").isPresent()) {
      throw KubeconfigPolicy.invalid(where + ": key config: tlsClientConfig: certData and keyData "
          + "go together");
    }
    if (insecure) {
      b.withTrustCerts(true).withDisableHostnameVerification(true);
    }
    return b.build();
  }

  private static java.util.Optional<String> text(JsonNode node, String field) {
    JsonNode v = node.path(field);
    return v.isTextual() && !v.asText().isBlank() ? java.util.Optional.of(v.asText())
        : java.util.Optional.empty();
  }
}
