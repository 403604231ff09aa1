/**
 * Turns one Kubernetes object, given as JSON, into one scrubbed {@link io.kollect.extract.Record}
 * according to a profile.
 *
 * <p>Entry points: {@link io.kollect.extract.ProfileLoader} reads a profile (a whole
 * {@code KollectProfile} object or just its spec) from YAML or JSON, {@link
 * io.kollect.extract.ProfileCompiler} validates it, reporting every problem at once, and compiles
 * every path once, and {@link io.kollect.extract.CompiledProfile#extract} produces records. {@link
 * io.kollect.extract.Records} (de)serialises records and computes the content hash. Paths are
 * kubectl JSONPath with kubectl's semantics (client-go's own test table passes); no value under a
 * sensitive key leaves this package unscrubbed, and a Secret's values never leave at all (paths see
 * their length, a keyed digest and certificate metadata, {@link io.kollect.extract.ExtractOptions});
 * Helm 3 release storage is decoded on request. {@link io.kollect.extract.ProfileDiff} says what
 * a candidate profile would deliver compared with a baseline (what a shadow experiment reports).
 * The schema, path dialect, reducers and the sensitive key list are documented in {@code
 * docs/profile-reference.md}. Golden tests for profiles live in {@link io.kollect.extract.golden}.
 * This module has no Kubernetes client dependency.
 */
package io.kollect.extract;
