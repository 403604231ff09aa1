package io.kollect.extract.golden;

import java.nio.file.Path;
import java.util.List;

/**
 * The outcome of a golden run: one result per case, and a readable diff of every mismatch.
 *
 * @param cases the cases, in folder-name order
 */
public record GoldenReport(List<CaseResult> cases) {

  public GoldenReport {
    cases = List.copyOf(cases);
  }

  /**
   * One case.
   *
   * @param name the case folder's name
   * @param directory the case folder
   * @param expectedRecords records in {@code expected.jsonl} (0 when it is missing)
   * @param actualRecords records the profile produced from {@code input/}
   * @param diff the unified-style diff per record key; empty when the case matches
   */
  public record CaseResult(String name, Path directory, int expectedRecords, int actualRecords, String diff) {
    public boolean matches() {
      return diff.isEmpty();
    }
  }

  /** Whether every case matches. */
  public boolean matches() {
    return cases.stream().allMatch(CaseResult::matches);
  }

  /** The diffs of all failing cases, one block per case; empty when everything matches. */
  public String diff() {
    StringBuilder sb = new StringBuilder();
    for (CaseResult c : cases) {
      if (!c.matches()) {
        sb.append(c.diff());
      }
    }
    return sb.toString();
  }

  /** One line: {@code 3 cases: 2 match, 1 differ (deployments)}. */
  public String summary() {
    long failed = cases.stream().filter(c -> !c.matches()).count();
    int records = cases.stream().mapToInt(CaseResult::actualRecords).sum();
    String s = cases.size() + (cases.size() == 1 ? " case" : " cases") + ", " + records
        + (records == 1 ? " record" : " records") + ": " + (cases.size() - failed) + " match";
    if (failed > 0) {
      s += ", " + failed + " differ ("
          + String.join(", ", cases.stream().filter(c -> !c.matches()).map(CaseResult::name).toList()) + ")";
    }
    return s;
  }

  /**
   * Does nothing when every case matches.
   *
   * @throws AssertionError with the summary and the diff otherwise
   */
  public void assertMatches() {
    if (!matches()) {
      throw new AssertionError("golden records differ: " + summary() + "\n" + diff());
    }
  }
}
