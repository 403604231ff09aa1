package io.kollect.operator.sink;

import io.kollect.export.HttpSinkConfig;
import io.kollect.export.WebhookSigning;
import io.kollect.operator.crd.HttpFormat;
import io.kollect.operator.crd.HttpSigningSpec;
import io.kollect.operator.crd.KollectSinkSpec;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code spec.http.format} and {@code spec.http.signing} of a KollectSink onto its {@link
 * HttpSinkConfig}: CloudEvents in the batched or binary content mode, and Standard Webhooks
 * signatures with {@code whsec_} keys from a Secret. The keys are read now, so a missing Secret or
 * a malformed key is the sink's condition at once (naming the field and the key's position, never
 * its value), and again before every request through {@link SecretValues}, so a rotated Secret
 * (old and new key side by side, then the new one alone) takes effect on the same sink.
 */
final class WebhookTranslation {

  private final SecretValues secrets;

  WebhookTranslation(SecretValues secrets) {
    this.secrets = secrets;
  }

  /**
   * {@code config} in the format and with the signing of {@code http}.
   *
   * @throws IllegalArgumentException naming the field and the problem
   */
  HttpSinkConfig apply(HttpSinkConfig config, String namespace, KollectSinkSpec.Http http) {
    HttpSinkConfig out = config.withFormat(format(http.format()));
    if (http.signing() != null) {
      out = out.withSigning(signing(namespace, http.signing()));
    }
    return out;
  }

  static HttpSinkConfig.Format format(HttpFormat format) {
    return switch (format == null ? HttpFormat.RECORDS : format) {
      case RECORDS -> HttpSinkConfig.Format.RECORDS;
      case CLOUDEVENTS -> HttpSinkConfig.Format.CLOUDEVENTS_BATCH;
      case CLOUDEVENTS_BINARY -> HttpSinkConfig.Format.CLOUDEVENTS_BINARY;
    };
  }

  private WebhookSigning signing(String namespace, HttpSigningSpec signing) {
    String field = "spec.http.signing.secretRef";
    HttpSigningSpec.SecretRef ref = signing.secretRef();
    if (ref == null || ref.name() == null || ref.name().isBlank()) {
      throw new IllegalArgumentException(field + ".name: is required");
    }
    String key = ref.key() == null || ref.key().isBlank() ? HttpSigningSpec.DEFAULT_KEY : ref.key();
    Supplier<List<String>> keys = () -> keys(secrets.value(namespace, ref.name(), key));
    try {
      keys.get();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      throw new IllegalArgumentException(field + ": cannot read the Secret: HTTP " + e.getCode());
    }
    try {
      return WebhookSigning.keys(keys);
    } catch (IllegalArgumentException e) {
      // "signingKeys: key 2 of 2 is not base64 after 'whsec_'": name where the keys come from
      throw new IllegalArgumentException(field + ": Secret " + namespace + "/" + ref.name()
          + " key " + key + ": " + e.getMessage().replaceFirst("^signingKeys: ", ""));
    }
  }

  /** The {@code whsec_} keys of one Secret value: separated by spaces, commas or newlines. */
  static List<String> keys(String value) {
    return Arrays.stream(value.split("[\\s,]+")).filter(k -> !k.isEmpty()).toList();
  }
}
