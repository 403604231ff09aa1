package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * One resource type of a profile; mirrors {@link io.kollect.extract.ResourceRule}.
 *
 * @param group API group, empty or absent for the core group
 * @param version API version
 * @param kind kind
 * @param fields fields to extract
 * @param labels glob allow-list of label keys
 * @param annotations glob allow-list of annotation keys
 * @param scrubKeys globs on key names whose values are replaced by {@code ********}
 * @param includeSecretData accepted for compatibility and ignored (Secret values never leave); the
 *     profile's status carries a warning saying what is exported instead
 * @param helmRelease decode Helm 3 release storage under {@code $.release}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProfileResource(
    @JsonPropertyDescription("API group; empty or absent for the core group.") String group,
    @Required @JsonPropertyDescription("API version, e.g. v1.") String version,
    @Required @JsonPropertyDescription("Kind, e.g. Deployment.") String kind,
    @JsonPropertyDescription("Fields to extract, each a name and a kubectl-dialect JSONPath.")
        List<ProfileField> fields,
    @JsonPropertyDescription("Glob allow-list of label keys to copy (none when empty).")
        List<String> labels,
    @JsonPropertyDescription(
            "Glob allow-list of annotation keys to copy (none when empty); "
                + "kubectl.kubernetes.io/last-applied-configuration is never copied.")
        List<String> annotations,
    @JsonPropertyDescription("Globs on key names inside extracted values whose values are scrubbed.")
        List<String> scrubKeys,
    @JsonPropertyDescription("Opt in to extracting data/stringData of Secrets.")
        Boolean includeSecretData,
    @JsonPropertyDescription("Decode Helm 3 release storage so paths can address $.release.")
        Boolean helmRelease) {}
