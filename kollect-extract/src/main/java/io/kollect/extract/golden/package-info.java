/**
 * Golden tests for profiles: run a compiled profile over folders of manifests and compare the
 * records with committed expectations, for downstream CI (the {@code kollect test} command and
 * plain JUnit tests use the same code).
 *
 * <p>A <em>case</em> is a folder with an {@code input/} folder of manifests ({@code *.yaml}, {@code
 * *.yml}, {@code *.json}; multi-document YAML and {@code kind: List} are understood) and an {@code
 * expected.jsonl} file: one record per line, sorted by {@link io.kollect.extract.Record#key()}.
 * A cases folder that itself contains {@code input/} is one case; otherwise each sub-folder with
 * {@code input/} is a case. {@code observedAt} is never compared. Mismatches are reported as
 * unified diffs made with java-diff-utils, which is why that library is a compile-scope dependency
 * of this module.
 *
 * <pre>{@code
 * GoldenSuite.of(Path.of("profiles/deployments.yaml"))
 *     .ignoreFields("uid", "resourceVersion")
 *     .run(Path.of("src/test/golden/deployments"))
 *     .assertMatches();
 * }</pre>
 */
package io.kollect.extract.golden;
