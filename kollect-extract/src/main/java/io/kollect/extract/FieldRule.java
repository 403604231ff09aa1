package io.kollect.extract;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * One extracted field.
 *
 * @param name the key under {@code fields} in the record
 * @param path a kubectl-dialect JSONPath, with or without the surrounding braces
 * @param defaultValue value used when the path matches nothing (JSON key {@code default})
 * @param reduce optional reducer applied to the result: {@code count}, {@code sum}, {@code min},
 *     {@code max}, {@code first}, {@code join}
 * @param list {@code true} to always produce a list, {@code false} to always produce a scalar
 *     (first match), {@code null} to follow kubectl (a list when the path can match several)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FieldRule(
    String name,
    String path,
    @com.fasterxml.jackson.annotation.JsonProperty("default") JsonNode defaultValue,
    String reduce,
    Boolean list) {

  /** A plain field: name and path. */
  public static FieldRule of(String name, String path) {
    return new FieldRule(name, path, null, null, null);
  }
}
