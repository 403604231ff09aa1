package io.kollect.extract;

/** A path that is not valid kubectl JSONPath; {@link #column()} is 1-based in the path string. */
final class PathSyntaxException extends Exception {
  private final int column;
  private final String problem;

  PathSyntaxException(String problem, int column) {
    super(problem + " at column " + column);
    this.problem = problem;
    this.column = column;
  }

  int column() {
    return column;
  }

  String problem() {
    return problem;
  }
}
