package io.kollect.operator.cli;

import io.kollect.operator.http.BindAddress;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters for the controller-tooling notations of durations and listen addresses. */
final class Converters {

  private Converters() {}

  /** Go-style durations: {@code 500ms}, {@code 15s}, {@code 1m30s}, {@code 10h}. */
  static final class GoDuration implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        if (!io.fabric8.kubernetes.api.model.Duration.isDuration(value)) {
          throw new TypeConversionException("'" + value + "' is not a duration (e.g. 15s, 1m30s, 10h)");
        }
        Duration d = io.fabric8.kubernetes.api.model.Duration.parse(value).getDuration();
        if (d.isNegative()) {
          throw new TypeConversionException("'" + value + "' is negative");
        }
        return d;
      } catch (java.text.ParseException e) {
        throw new TypeConversionException("'" + value + "' is not a duration (e.g. 15s, 1m30s, 10h)");
      }
    }
  }

  /** {@code :8080}, {@code 127.0.0.1:8080} or {@code 0} (off). */
  static final class Address implements ITypeConverter<BindAddress> {
    @Override
    public BindAddress convert(String value) {
      try {
        return BindAddress.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
