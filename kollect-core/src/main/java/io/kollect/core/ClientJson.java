package io.kollect.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;

/**
 * Moves JSON trees between the Kubernetes client and Kollect's extraction and export.
 *
 * <p>fabric8 8.x (de)serializes with Jackson 3 ({@code tools.jackson}); extraction and export
 * read and write Jackson 2 trees ({@code com.fasterxml.jackson}). The two lines share only their
 * annotations: asking the client for a Jackson 2 {@code JsonNode} fails (it is an abstract class
 * to Jackson 3), and handing it one writes the node's getters, not its content. So an object
 * crosses once, here: the client writes it as it would send it to the API server (its own
 * serializers for quantities, int-or-strings and dates apply) into its own tree, and that tree is
 * copied node for node. The copy keeps each number's type (int, long, double, big decimal...), so
 * a record's content hash is what it was when both sides spoke Jackson 2, and costs less than
 * writing and parsing text. The engine's cached objects are mostly built in one pass from their
 * decoded values instead (kollect-core's {@code ProjectedResourceTree}), which checks that it
 * builds what this builds and comes here for any value it does not handle.
 */
public final class ClientJson {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final tools.jackson.databind.node.JsonNodeFactory CLIENT_NODES =
      tools.jackson.databind.node.JsonNodeFactory.instance;

  private ClientJson() {}

  /** {@code value} as the client writes it, as the tree extraction and export read. */
  public static JsonNode toTree(KubernetesSerialization serialization, Object value) {
    return fromClient(serialization.convertValue(value, tools.jackson.databind.JsonNode.class));
  }

  /** A copy of the client's tree {@code node} in the tree type of extraction and export. */
  public static JsonNode fromClient(tools.jackson.databind.JsonNode node) {
    if (node == null) {
      return null;
    }
    switch (node.getNodeType()) {
      case OBJECT -> {
        ObjectNode out = NODES.objectNode();
        for (Map.Entry<String, tools.jackson.databind.JsonNode> e : node.properties()) {
          out.set(e.getKey(), fromClient(e.getValue()));
        }
        return out;
      }
      case ARRAY -> {
        ArrayNode out = NODES.arrayNode(node.size());
        for (tools.jackson.databind.JsonNode e : node) {
          out.add(fromClient(e));
        }
        return out;
      }
      case STRING -> {
        return NODES.textNode(node.stringValue());
      }
      case NUMBER -> {
        return switch (node.numberType()) {
          case INT -> NODES.numberNode(node.intValue());
          case LONG -> NODES.numberNode(node.longValue());
          case BIG_INTEGER -> NODES.numberNode(node.bigIntegerValue());
          case FLOAT -> NODES.numberNode(node.floatValue());
          case DOUBLE -> NODES.numberNode(node.doubleValue());
          case BIG_DECIMAL -> NODES.numberNode(node.decimalValue());
        };
      }
      case BOOLEAN -> {
        return NODES.booleanNode(node.booleanValue());
      }
      case BINARY -> {
        return NODES.binaryNode(node.binaryValue());
      }
      case NULL -> {
        return NODES.nullNode();
      }
      case MISSING -> {
        return NODES.missingNode();
      }
      default -> throw new IllegalArgumentException(
          "no JSON value: a " + node.getNodeType() + " node in a tree from the client");
    }
  }

  /** A copy of {@code node} in the client's tree type, for a resource field the client writes. */
  public static tools.jackson.databind.JsonNode toClient(JsonNode node) {
    if (node == null) {
      return null;
    }
    switch (node.getNodeType()) {
      case OBJECT -> {
        tools.jackson.databind.node.ObjectNode out = CLIENT_NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          out.set(e.getKey(), toClient(e.getValue()));
        }
        return out;
      }
      case ARRAY -> {
        tools.jackson.databind.node.ArrayNode out = CLIENT_NODES.arrayNode(node.size());
        for (JsonNode e : node) {
          out.add(toClient(e));
        }
        return out;
      }
      case STRING -> {
        return CLIENT_NODES.stringNode(node.textValue());
      }
      case NUMBER -> {
        return switch (node.numberType()) {
          case INT -> CLIENT_NODES.numberNode(node.intValue());
          case LONG -> CLIENT_NODES.numberNode(node.longValue());
          case BIG_INTEGER -> CLIENT_NODES.numberNode(node.bigIntegerValue());
          case FLOAT -> CLIENT_NODES.numberNode(node.floatValue());
          case DOUBLE -> CLIENT_NODES.numberNode(node.doubleValue());
          case BIG_DECIMAL -> CLIENT_NODES.numberNode(node.decimalValue());
        };
      }
      case BOOLEAN -> {
        return CLIENT_NODES.booleanNode(node.booleanValue());
      }
      case BINARY -> {
        try {
          return CLIENT_NODES.binaryNode(node.binaryValue());
        } catch (java.io.IOException e) {
          throw new IllegalArgumentException("unreadable binary node", e);
        }
      }
      case NULL -> {
        return CLIENT_NODES.nullNode();
      }
      case MISSING -> {
        return CLIENT_NODES.missingNode();
      }
      default -> throw new IllegalArgumentException(
          "no JSON value: a " + node.getNodeType() + " node in a record");
    }
  }
}
