package io.kollect.extract;

import java.util.List;

/**
 * A profile that cannot be used. {@link #problems()} lists every problem found, each naming where it
 * is ({@code resources[0].fields[2] "ready"}) and what is wrong; {@link #getMessage()} joins them
 * on one line with {@code "; "}. Messages never contain values from the profile's {@code default}
 * entries or from objects, only names and positions.
 */
public final class ProfileValidationException extends RuntimeException {

  /**
   * One problem.
   *
   * @param location e.g. {@code resources[0].fields[2] "ready"}
   * @param message e.g. {@code unexpected ']' at column 17}
   */
  public record Problem(String location, String message) {
    @Override
    public String toString() {
      return location.isEmpty() ? message : location + ": " + message;
    }
  }

  private final transient List<Problem> problems;

  public ProfileValidationException(String profileName, List<Problem> problems) {
    super(format(profileName, problems));
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }

  private static String format(String profileName, List<Problem> problems) {
    StringBuilder sb = new StringBuilder("profile ").append(profileName).append(" is invalid: ");
    for (int i = 0; i < problems.size(); i++) {
      if (i > 0) {
        sb.append("; ");
      }
      sb.append(problems.get(i));
    }
    return sb.toString();
  }
}
