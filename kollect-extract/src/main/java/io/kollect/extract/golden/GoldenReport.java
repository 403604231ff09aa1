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
   * @param matchingRecords record keys whose expected and actual records are equal
   * @param differingRecords record keys missing, unexpected or changed
   * @param diff the unified-style diff per record key; empty when the case matches
   */
  public record CaseResult(String name, Path directory, int expectedRecords, int actualRecords,
      int matchingRecords, int differingRecords, String diff) {
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

  /**
   * One line that counts cases and records separately: {@code 2 cases: 1 match, 1 differs
   * (rollout); 4 records: 3 match, 1 differs}.
   */
  public String summary() {
    List<String> failed = cases.stream().filter(c -> !c.matches()).map(CaseResult::name).toList();
    int matching = cases.stream().mapToInt(CaseResult::matchingRecords).sum();
    int differing = cases.stream().mapToInt(CaseResult::differingRecords).sum();
    String s = count(cases.size(), "case") + ": " + (cases.size() - failed.size()) + " match";
    if (!failed.isEmpty()) {
      s += ", " + failed.size() + differ(failed.size()) + " (" + String.join(", ", failed) + ")";
    }
    s += "; " + count(matching + differing, "record") + ": " + matching + " match";
    if (differing > 0) {
      s += ", " + differing + differ(differing);
    }
    return s;
  }

  private static String count(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static String differ(int n) {
    return n == 1 ? " differs" : " differ";
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
