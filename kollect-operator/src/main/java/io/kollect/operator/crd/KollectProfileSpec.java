package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * {@code KollectProfile.spec}: mirrors {@link io.kollect.extract.ProfileSpec} field for field.
 *
 * @param resources one entry per resource type
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectProfileSpec(
    @Required @JsonPropertyDescription("One entry per resource type to collect.")
        List<ProfileResource> resources) {}
