package io.kollect.extract;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A profile: what to collect. The same schema as {@code KollectProfile.spec}; load it from YAML or
 * JSON with {@link ProfileLoader}, or build it in code.
 *
 * @param resources one entry per resource type
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ProfileSpec(List<ResourceRule> resources) {
  public ProfileSpec {
    resources = resources == null ? List.of() : List.copyOf(resources);
  }
}
