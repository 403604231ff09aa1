package io.kollect.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.informers.ResourceType;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The plural resource name of a kind (what RBAC rules and access reviews name), from the API
 * server's discovery. Found names are cached for a while; a kind not served is asked again next
 * time, so a CRD that appears later is found.
 */
final class ResourcePlurals implements Function<ResourceType, Optional<String>> {

  private final KubernetesClient client;
  private final Cache<ResourceType, String> found = Caffeine.newBuilder()
      .expireAfterWrite(Duration.ofMinutes(10)).maximumSize(10_000).build();

  ResourcePlurals(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<String> apply(ResourceType type) {
    String cached = found.getIfPresent(type);
    if (cached != null) {
      return Optional.of(cached);
    }
    APIResourceList list;
    try {
      list = client.getApiResources(type.apiVersion());
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return Optional.empty();
      }
      throw new IllegalStateException("discovery of " + type.apiVersion() + " at "
          + client.getMasterUrl() + " failed: " + e.getMessage(), e);
    }
    if (list == null || list.getResources() == null) {
      return Optional.empty();
    }
    for (APIResource r : list.getResources()) {
      if (type.kind().equals(r.getKind()) && r.getName() != null && !r.getName().contains("/")) {
        found.put(type, r.getName());
        return Optional.of(r.getName());
      }
    }
    return Optional.empty();
  }
}
