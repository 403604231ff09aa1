package io.kollect.operator;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import tools.jackson.databind.json.JsonMapper;

/** Builds the operator's API client the way controller tooling does. */
public final class KubeClients {

  /** {@code --kube-api-qps} default (see docs/operations.md for what a target costs). */
  public static final String DEFAULT_QPS_FLAG = "50";
  /** {@code --kube-api-burst} default. */
  public static final String DEFAULT_BURST_FLAG = "100";
  /** {@link #DEFAULT_QPS_FLAG} as a number. */
  public static final double DEFAULT_QPS = Double.parseDouble(DEFAULT_QPS_FLAG);
  /** {@link #DEFAULT_BURST_FLAG} as a number. */
  public static final int DEFAULT_BURST = Integer.parseInt(DEFAULT_BURST_FLAG);

  private KubeClients() {}

  /**
   * A client from {@code kubeconfig} when given, else fabric8's auto-configuration ({@code
   * $KUBECONFIG}, {@code ~/.kube/config}, then the in-cluster service account), limited to {@code
   * qps} requests per second with bursts of {@code burst}.
   *
   * @throws IllegalArgumentException when the kubeconfig file does not exist
   */
  public static KubernetesClient create(Optional<Path> kubeconfig, Optional<String> context,
      double qps, int burst) {
    Config config;
    if (kubeconfig.isPresent()) {
      Path file = kubeconfig.get();
      if (!Files.isReadable(file)) {
        throw new IllegalArgumentException("--kubeconfig: " + file + " does not exist or is not readable");
      }
      config = Config.fromKubeconfig(context.orElse(null), new File(file.toString()));
    } else {
      config = Config.autoConfigure(context.orElse(null));
    }
    RateLimit limit = new RateLimit(qps, burst);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new GzipClientFactory())
        .withKubernetesSerialization(serialization())
        .withHttpClientBuilderConsumer(b -> quiet(b).addOrReplaceInterceptor("kollect-rate-limit", limit))
        .build();
  }

  /**
   * fabric8's JSON mapping of the client (its default mapper and modules), except for one path of
   * Jackson's: the fields of a {@code GenericKubernetesResource} beyond apiVersion, kind and
   * metadata (a ConfigMap's {@code data}, a Deployment's {@code spec} and {@code status}: every
   * object an informer decodes has some) go straight into its map of additional properties.
   *
   * <p>fabric8 has them set through the class's any-setter method, which Jackson 3 calls by
   * binding and spreading a method handle per value ({@code AnnotatedMethod.callOnWith}: it
   * allocates about 3.6 KB per call, through 3.3.0); the field it sets is the same map, so the
   * decoded objects are equal. Every watch event of every informer is decoded on the client's
   * event loop (list pages by the informers' own reader, which fills the map directly;
   * docs/informers.md, docs/benchmarks.md).
   */
  public static KubernetesSerialization serialization() {
    return new KubernetesSerialization(JsonMapper.builderWithJackson2Defaults()
        .addModule(new Jackson2JdkTypesModule())
        .addMixIn(GenericKubernetesResource.class, GenericResourceFields.class)
        .build(), true);
  }

  /**
   * The mix-in of {@link #serialization}: the map field is the any-setter, not the method. A key
   * named {@code additionalProperties} in the JSON is skipped, as fabric8's mapping skips it (the
   * field is {@code @JsonIgnore} there): made visible, the field would also be a property of that
   * name, and an object could set its own top-level fields through it.
   */
  @JsonIgnoreProperties(value = "additionalProperties", allowGetters = true)
  abstract static class GenericResourceFields {
    @JsonAnySetter
    @JsonIgnore(false)
    Map<String, Object> additionalProperties;

    @JsonAnySetter(enabled = false)
    abstract void setAdditionalProperty(String name, Object value);
  }

  /**
   * fabric8's Vert.x client, asking the API server for gzip-compressed answers as client-go does.
   *
   * <p>The API server compresses a non-streaming answer over 128 KiB when the client accepts
   * gzip (a LIST page of a few hundred objects; never a watch). client-go accepts it by default,
   * so every Go controller's informers already list this way; fabric8's Vert.x client does not
   * ask. For Kollect the difference is the first inventory: with only the JIT's first tier (the
   * shipped options) decrypting TLS runs without the CPU's AES instructions, and a gzipped page is
   * several times fewer bytes to decrypt, while inflating it is native code (docs/benchmarks.md).
   */
  public static final class GzipClientFactory extends Vertx5HttpClientFactory {

    /** With a Vert.x instance of its own, as fabric8's default factory. */
    public GzipClientFactory() {
    }

    /** On a shared Vert.x instance, which the clients never close. */
    public GzipClientFactory(Vertx vertx) {
      super(vertx);
    }

    @Override
    protected void additionalConfig(WebClientOptions options,
        WebSocketClientOptions webSocketOptions, PoolOptions poolOptions) {
      options.setDecompressionSupported(true);
    }
  }

  /** fabric8's name of the interceptor that logs whole requests and responses at trace. */
  static final String HTTP_LOGGING_INTERCEPTOR = "HttpLogging";

  /**
   * Replaces fabric8's HTTP logging interceptor with one that logs nothing: at trace it would log
   * request and response bodies (unscrubbed objects, Secrets) and the Authorization header.
   * {@link LogSetup} also keeps its logger off; this holds when an embedder configures logging.
   */
  public static <T extends io.fabric8.kubernetes.client.http.HttpClient.Builder> T quiet(T builder) {
    builder.addOrReplaceInterceptor(HTTP_LOGGING_INTERCEPTOR, new Interceptor() { });
    return builder;
  }

  /**
   * A client-side token bucket like client-go's: requests wait for a token; tokens refill at
   * {@code qps} per second up to {@code burst}. Protects the API server from a reconcile storm.
   */
  public static final class RateLimit implements Interceptor {
    private final double qps;
    private final int burst;
    private double tokens;
    private long last = System.nanoTime();

    public RateLimit(double qps, int burst) {
      if (qps <= 0) {
        throw new IllegalArgumentException("--kube-api-qps must be positive");
      }
      if (burst < 1) {
        throw new IllegalArgumentException("--kube-api-burst must be at least 1");
      }
      this.qps = qps;
      this.burst = burst;
      this.tokens = burst;
    }

    /** Takes a token and returns how long the caller must wait for it, in nanoseconds. */
    synchronized long reserve() {
      long now = System.nanoTime();
      tokens = Math.min(burst, tokens + (now - last) / 1e9 * qps);
      last = now;
      tokens -= 1;
      return tokens >= 0 ? 0 : (long) (-tokens / qps * 1e9);
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
      long wait = reserve();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
    }
  }
}
