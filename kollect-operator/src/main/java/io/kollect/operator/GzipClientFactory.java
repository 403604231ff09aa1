package io.kollect.operator;

import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.ext.web.client.WebClientOptions;

/**
 * fabric8's Vert.x client, asking the API server for gzip-compressed answers as client-go does.
 *
 * <p>The API server compresses a non-streaming answer over 128 KiB when the client accepts gzip
 * (a LIST page of a few hundred objects; never a watch). client-go accepts it by default, so every
 * Go controller's informers already list this way; fabric8's Vert.x client does not ask. For
 * Kollect the difference is the first inventory: with only the JIT's first tier (the shipped
 * options) decrypting TLS runs without the CPU's AES instructions, and a gzipped page is several
 * times fewer bytes to decrypt, while inflating it is native code (docs/benchmarks.md).
 */
public final class GzipClientFactory extends Vertx5HttpClientFactory {

  /** With a Vert.x instance of its own, as fabric8's default factory. */
  public GzipClientFactory() {
  }

  /** On a shared Vert.x instance, which the clients never close. */
  public GzipClientFactory(Vertx vertx) {
    super(vertx);
  }

  @Override
  protected void additionalConfig(WebClientOptions options, WebSocketClientOptions webSocketOptions,
      PoolOptions poolOptions) {
    options.setDecompressionSupported(true);
  }
}
