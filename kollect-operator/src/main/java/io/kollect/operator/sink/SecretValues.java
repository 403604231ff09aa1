package io.kollect.operator.sink;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * Reads sink credentials from Secrets in the sink's namespace when a request needs them. A Secret
 * is read at most every {@link #TTL}, so a rotated credential takes effect within that time
 * without watching every Secret in the cluster. Values never appear in messages.
 */
final class SecretValues {

  static final Duration TTL = Duration.ofSeconds(30);

  /**
   * The time-to-live of instances created from now on: {@link #TTL}, unless an integration test
   * of this package shortens it to see a rotated Secret in seconds (and restores it).
   */
  static volatile Duration ttl = TTL;

  private record Key(String namespace, String name) {}

  private final LoadingCache<Key, Optional<Map<String, String>>> cache;

  SecretValues(KubernetesClient client) {
    this.cache = Caffeine.newBuilder()
        .expireAfterWrite(ttl)
        .maximumSize(1000)
        .build(k -> Optional.ofNullable(
                client.secrets().inNamespace(k.namespace()).withName(k.name()).get())
            .map(SecretValues::decode));
  }

  private static Map<String, String> decode(Secret s) {
    Map<String, String> out = new java.util.HashMap<>();
    if (s.getData() != null) {
      s.getData().forEach((k, v) -> out.put(k,
          new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
    }
    if (s.getStringData() != null) {
      out.putAll(s.getStringData());
    }
    return out;
  }

  /**
   * The value of one key.
   *
   * @throws IllegalStateException naming the Secret and key (not the value) when either is missing
   */
  String value(String namespace, String name, String key) {
    Map<String, String> data = cache.get(new Key(namespace, name)).orElseThrow(() ->
        new IllegalStateException("Secret " + namespace + "/" + name + " does not exist"));
    String value = data.get(key);
    if (value == null) {
      throw new IllegalStateException("Secret " + namespace + "/" + name + " has no key " + key);
    }
    return value;
  }
}
