package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * {@code KollectTarget.spec}.
 *
 * @param profileRef name of a KollectProfile
 * @param scope which objects; absent means every object of the profile's types
 * @param sinkRefs names of KollectSinks in the target's namespace
 * @param writeInventory also write the records to KollectInventory objects
 * @param serviceAccountName the ServiceAccount in the target's namespace whose read permissions
 *     bound what the target reads (default: the operator's {@code --default-service-account})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectTargetSpec(
    @Required @JsonPropertyDescription("Name of the (cluster-scoped) KollectProfile to apply.")
        String profileRef,
    @JsonPropertyDescription("Which objects; absent means every object of the profile's types.")
        TargetScopeSpec scope,
    @JsonPropertyDescription("Names of KollectSinks in this namespace that receive the records.")
        List<String> sinkRefs,
    @JsonPropertyDescription("Also keep the current records in KollectInventory objects in this namespace.")
        Boolean writeInventory,
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
        @JsonPropertyDescription("ServiceAccount in this namespace whose list/watch permissions "
            + "bound what the target reads (default: the operator's --default-service-account).")
        String serviceAccountName) {

  /** The spec before issue 12 (no ServiceAccount: the operator's default). */
  public KollectTargetSpec(String profileRef, TargetScopeSpec scope, List<String> sinkRefs,
      Boolean writeInventory) {
    this(profileRef, scope, sinkRefs, writeInventory, null);
  }
}
