package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import tools.jackson.databind.JsonNode;
import java.util.List;

/**
 * {@code KollectInventory.spec}.
 *
 * @param target the KollectTarget's name
 * @param part index of this part, from 0
 * @param parts how many parts the target's inventory has
 * @param recordCount records in this part
 * @param records the records, in the format of {@code docs/record-format.md}, ordered by key
 */
public record KollectInventorySpec(
    @JsonPropertyDescription("Name of the KollectTarget in this namespace.") String target,
    @JsonPropertyDescription("Index of this part, from 0.") int part,
    @JsonPropertyDescription("How many parts the target's inventory has.") int parts,
    @JsonPropertyDescription("Records in this part.") int recordCount,
    @JsonPropertyDescription("The records (docs/record-format.md), ordered by key.")
        List<JsonNode> records) {}
