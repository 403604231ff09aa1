package io.kollect.core.lifecycle;

import java.util.Locale;

/** What sinks receive while an experiment runs. */
public enum ExperimentMode {
  /** The baseline; the candidate is only evaluated and compared (the default). */
  SHADOW,
  /** The candidate. */
  LIVE;

  /** The word in status and on the command line. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode of a status or flag word. */
  public static ExperimentMode fromWire(String mode) {
    for (ExperimentMode m : values()) {
      if (m.wire().equals(mode)) {
        return m;
      }
    }
    throw new IllegalArgumentException("mode: \"" + mode + "\" is not shadow or live");
  }
}
