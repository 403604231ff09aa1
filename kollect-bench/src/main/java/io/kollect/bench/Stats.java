package io.kollect.bench;

import java.util.Arrays;
import java.util.Collection;

/** Order statistics of a sample (nearest-rank percentiles, as latency reports usually quote them). */
record Stats(int count, double min, double p50, double p99, double max) {

  static Stats of(Collection<? extends Number> values) {
    double[] sorted = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
    if (sorted.length == 0) {
      return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    return new Stats(sorted.length, sorted[0], percentile(sorted, 50), percentile(sorted, 99),
        sorted[sorted.length - 1]);
  }

  /** Nearest rank: the smallest value with at least {@code p} % of the sample at or below it. */
  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** The median (for the three LIST timings: the middle one). */
  static double median(double... values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
