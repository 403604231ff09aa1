package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;

/**
 * {@code KollectTarget.spec.scope}: all given criteria must hold.
 *
 * @param namespaces namespaces to cover
 * @param namespaceSelector namespaces whose labels match
 * @param labelSelector objects whose labels match
 * @param names object names
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TargetScopeSpec(
    @JsonPropertyDescription("Namespaces to cover; empty with no namespaceSelector means all.")
        List<String> namespaces,
    @JsonPropertyDescription("Cover namespaces whose labels match.") LabelSelector namespaceSelector,
    @JsonPropertyDescription("Cover objects whose labels match.") LabelSelector labelSelector,
    @JsonPropertyDescription("Cover only objects with these names.") List<String> names) {}
