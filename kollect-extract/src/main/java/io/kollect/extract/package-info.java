/**
 * Turns one Kubernetes object, given as JSON, into one scrubbed {@link io.kollect.extract.Record}
 * according to a profile.
 *
 * <p>Entry points: {@link io.kollect.extract.ProfileLoader} reads a profile (a whole
 * {@code KollectProfile} object or just its spec) from YAML or JSON, {@link
 * io.kollect.extract.ProfileCompiler} validates it and compiles every path once, and {@link
 * io.kollect.extract.CompiledProfile#extract} produces records. No value under a sensitive key
 * leaves this package unscrubbed. This module has no Kubernetes client dependency.
 */
package io.kollect.extract;
