package io.kollect.operator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.operator.KubeClients;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The API client flags of {@code kollect run}: which cluster, as whom, how fast. */
final class ClientOptions {

  @Option(names = "--kubeconfig", paramLabel = "FILE",
      description = "Kubeconfig to use. Default: $KUBECONFIG, ~/.kube/config, else the in-cluster service account.")
  Path kubeconfig;

  @Option(names = "--context", paramLabel = "NAME",
      description = "Kubeconfig context (default: current).")
  String context;

  @Option(names = "--kube-api-qps", paramLabel = "QPS", defaultValue = KubeClients.DEFAULT_QPS_FLAG,
      description = "Client-side limit of API requests per second (default: ${DEFAULT-VALUE}).")
  double qps;

  @Option(names = "--kube-api-burst", paramLabel = "N",
      defaultValue = KubeClients.DEFAULT_BURST_FLAG,
      description = "Client-side burst of API requests (default: ${DEFAULT-VALUE}).")
  int burst;

  /** The API client, limited as the flags say; a bad kubeconfig is bad input (exit 2). */
  KubernetesClient client() {
    try {
      return KubeClients.create(Optional.ofNullable(kubeconfig), Optional.ofNullable(context),
          qps, burst);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    } catch (KubernetesClientException e) {
      throw new BadInputException("cannot configure the API client: " + e.getMessage());
    }
  }
}
