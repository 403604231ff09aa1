/**
 * The Kollect custom resources (group {@code kollect.io}, version {@code v1alpha1}): {@link
 * io.kollect.operator.crd.KollectProfile}, {@link io.kollect.operator.crd.KollectTarget}, {@link
 * io.kollect.operator.crd.KollectSink}, {@link io.kollect.operator.crd.KollectInventory} and {@link
 * io.kollect.operator.crd.KollectCluster}.
 *
 * <p>The CRD YAML in {@code deploy/crds/} is generated from these classes by fabric8's
 * crd-generator, then given what the generator cannot emit by {@link
 * io.kollect.operator.crd.CrdSchemaFixes} (both in the build); never edit it by hand. Spec and
 * status types are Jackson-mapped records. {@link io.kollect.operator.crd.KindWatch} watches one
 * kind so that a single unreadable object cannot end the watch.
 */
package io.kollect.operator.crd;
