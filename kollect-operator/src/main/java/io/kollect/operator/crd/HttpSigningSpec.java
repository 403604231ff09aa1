package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/**
 * {@code KollectSink.spec.http.signing}: every request signed the Standard Webhooks way
 * (docs/sinks.md, "CloudEvents and signatures").
 *
 * @param secretRef the Secret key holding one or more {@code whsec_} keys, separated by white
 *     space or commas: during a rotation the old and the new one, and every request carries a signature per
 *     key
 */
public record HttpSigningSpec(
    @Required @JsonPropertyDescription("A Secret in this namespace whose key (default "
        + "signing-keys) holds one or more whsec_ keys separated by spaces, commas or newlines; during a "
        + "rotation give the old and the new key.") SecretRef secretRef) {

  /** Default {@link SecretRef#key()}. */
  public static final String DEFAULT_KEY = "signing-keys";

  /**
   * A key of a Secret in the sink's namespace.
   *
   * @param name Secret name
   * @param key key in the Secret (default {@code signing-keys})
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SecretRef(@Required String name,
      @JsonPropertyDescription("Key in the Secret (default signing-keys).") String key) {}
}
