package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import tools.jackson.databind.JsonNode;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * One extracted field; mirrors {@link io.kollect.extract.FieldRule}.
 *
 * @param name key under {@code fields} in the record
 * @param path kubectl-dialect JSONPath
 * @param defaultValue any JSON value used when the path matches nothing
 * @param reduce optional reducer
 * @param list force a list ({@code true}) or a scalar ({@code false})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProfileField(
    @Required @JsonPropertyDescription("Key of the field in the record's fields.") String name,
    @Required @JsonPropertyDescription("kubectl-dialect JSONPath, with or without braces, e.g. {.spec.replicas}.")
        String path,
    @JsonProperty("default")
        @PreserveUnknownFields
        @JsonPropertyDescription("Any JSON value used when the path matches nothing.")
        JsonNode defaultValue,
    @Pattern("^(count|sum|min|max|first|join)$")
        @JsonPropertyDescription("Reducer applied to the matches: count, sum, min, max, first or join.")
        String reduce,
    @JsonPropertyDescription("true: always a list; false: always a scalar (first match); absent: as kubectl.")
        Boolean list) {}
