package io.kollect.export.otlp;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * OTLP values as plain Java values, so a test states the expected log record as literals. Public
 * for kollect-operator's tests (from this module's test-jar).
 */
public final class AnyValues {

  /** Marks the empty AnyValue (a JSON null). */
  public static final String EMPTY = "<empty>";

  private AnyValues() {}

  /** Attributes or key-value lists as an ordered map of plain values. */
  public static Map<String, Object> map(List<KeyValue> values) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (KeyValue kv : values) {
      out.put(kv.getKey(), plain(kv.getValue()));
    }
    return out;
  }

  /** String, Long, Double, Boolean, List, Map, or {@link #EMPTY}. */
  public static Object plain(AnyValue v) {
    return switch (v.getValueCase()) {
      case STRING_VALUE -> v.getStringValue();
      case INT_VALUE -> v.getIntValue();
      case DOUBLE_VALUE -> v.getDoubleValue();
      case BOOL_VALUE -> v.getBoolValue();
      case ARRAY_VALUE -> v.getArrayValue().getValuesList().stream().map(AnyValues::plain).toList();
      case KVLIST_VALUE -> map(v.getKvlistValue().getValuesList());
      case BYTES_VALUE -> v.getBytesValue().toByteArray();
      default -> EMPTY;
    };
  }
}
