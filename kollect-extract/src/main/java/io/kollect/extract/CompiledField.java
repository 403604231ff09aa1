package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;

/** One field of a compiled rule: the compiled path plus list/scalar mode, reducer and default. */
final class CompiledField {

  final String name;
  final String sourcePath;
  final KubectlPath path;
  private final boolean definite;
  private final Reducer reducer;
  private final Boolean list;
  private final JsonNode defaultValue;

  CompiledField(
      String name,
      String sourcePath,
      KubectlPath path,
      Reducer reducer,
      Boolean list,
      JsonNode defaultValue) {
    this.name = name;
    this.sourcePath = sourcePath;
    this.path = path;
    this.definite = path.isDefinite();
    this.reducer = reducer;
    this.list = list;
    this.defaultValue = defaultValue;
  }

  /** The field's value from an already projected and scrubbed view; {@code null} when absent. */
  JsonNode evaluate(JsonNode view) {
    // Where kubectl would fail the whole print (an index out of range, a filter on a string), the
    // values it fails on match nothing, as a missing key does: a collector cannot fail an object.
    List<JsonNode> matches = path.matches(view);
    JsonNode value;
    if (definite) {
      value = matches.isEmpty() || matches.get(0).isNull() ? null : matches.get(0);
    } else {
      ArrayNode all = JsonNodeFactory.instance.arrayNode(matches.size());
      matches.forEach(all::add);
      value = all;
    }
    JsonNode result = shape(value);
    if (result != null) {
      // The view shares unchanged subtrees with the input object; records own their values.
      return result.isContainerNode() ? result.deepCopy() : result;
    }
    if (defaultValue != null) {
      // records must not share mutable nodes with the profile
      return defaultValue.isContainerNode() ? defaultValue.deepCopy() : defaultValue;
    }
    return Boolean.TRUE.equals(list) ? JsonNodeFactory.instance.arrayNode() : null;
  }

  private JsonNode shape(JsonNode value) {
    if (reducer != null) {
      return reducer.apply(matches(value));
    }
    if (definite) {
      if (value == null) {
        return null;
      }
      if (Boolean.TRUE.equals(list) && !value.isArray()) {
        return JsonNodeFactory.instance.arrayNode().add(value);
      }
      return value;
    }
    ArrayNode all = (ArrayNode) value;
    if (Boolean.FALSE.equals(list)) {
      return all == null || all.isEmpty() ? null : all.get(0);
    }
    if (all == null || all.isEmpty()) {
      return null;
    }
    return all;
  }

  /** The individual matches: an indefinite path's list, a definite array's elements, or one value. */
  private List<JsonNode> matches(JsonNode value) {
    List<JsonNode> out = new ArrayList<>();
    if (value == null) {
      return out;
    }
    if (!definite || value.isArray()) {
      value.forEach(out::add);
    } else if (value.isObject() && reducer == Reducer.COUNT) {
      value.fieldNames().forEachRemaining(k -> out.add(value.get(k)));
    } else {
      out.add(value);
    }
    return out;
  }

}
