package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.JsonPathException;
import com.jayway.jsonpath.Option;
import com.jayway.jsonpath.spi.json.JacksonJsonNodeJsonProvider;
import com.jayway.jsonpath.spi.mapper.JacksonMappingProvider;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/** One field of a compiled rule: the compiled path plus list/scalar mode, reducer and default. */
final class CompiledField {

  /**
   * Jayway evaluates directly on Jackson trees, so numbers stay numbers and objects stay objects.
   * SUPPRESS_EXCEPTIONS turns "no such key" on definite paths into null instead of an exception
   * per missing field per object.
   */
  static final Configuration JAYWAY =
      Configuration.builder()
          .jsonProvider(new JacksonJsonNodeJsonProvider())
          .mappingProvider(new JacksonMappingProvider())
          .options(EnumSet.of(Option.SUPPRESS_EXCEPTIONS))
          .build();

  final String name;
  final String sourcePath;
  final KubectlPath.Translated translated;
  private final JsonPath path;
  private final boolean definite;
  private final Reducer reducer;
  private final Boolean list;
  private final JsonNode defaultValue;

  CompiledField(
      String name,
      String sourcePath,
      KubectlPath.Translated translated,
      JsonPath path,
      Reducer reducer,
      Boolean list,
      JsonNode defaultValue) {
    this.name = name;
    this.sourcePath = sourcePath;
    this.translated = translated;
    this.path = path;
    this.definite = path.isDefinite();
    this.reducer = reducer;
    this.list = list;
    this.defaultValue = defaultValue;
  }

  /** The field's value from an already projected and scrubbed view; {@code null} when absent. */
  JsonNode evaluate(JsonNode view) {
    JsonNode value;
    try {
      value = toNode(path.read(view, JAYWAY));
    } catch (JsonPathException e) {
      // A shape mismatch (a filter or index applied to a string, say) matches nothing, as a
      // missing key does; kubectl fails the whole print instead, which a collector cannot do.
      value = null;
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

  static JsonNode toNode(Object raw) {
    if (raw == null) {
      return null;
    }
    if (raw instanceof JsonNode n) {
      return n.isNull() || n.isMissingNode() ? null : n;
    }
    // Jayway unwraps leaves to Java values; wrap them back without a serialisation round trip.
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (raw instanceof String s) {
      return f.textNode(s);
    } else if (raw instanceof Integer i) {
      return f.numberNode(i);
    } else if (raw instanceof Long l) {
      return f.numberNode(l);
    } else if (raw instanceof Double d) {
      return f.numberNode(d);
    } else if (raw instanceof Boolean b) {
      return f.booleanNode(b);
    } else if (raw instanceof java.math.BigDecimal d) {
      return f.numberNode(d);
    } else if (raw instanceof java.math.BigInteger i) {
      return f.numberNode(i);
    }
    return Records.mapper().valueToTree(raw);
  }
}
