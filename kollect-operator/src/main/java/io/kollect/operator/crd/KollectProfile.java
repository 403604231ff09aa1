package io.kollect.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * What to collect: resource types and the fields, labels and annotations to extract from them.
 * Cluster-scoped; the spec has the schema of {@link io.kollect.extract.ProfileSpec}.
 */
@Group(KollectProfile.GROUP)
@Version(KollectProfile.VERSION)
@ShortNames("kprofile")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Resources", jsonPath = ".status.resources", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Status", jsonPath = ".status.conditions[?(@.type==\"Ready\")].message", priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class KollectProfile extends CustomResource<KollectProfileSpec, KollectProfileStatus> {
  /** The API group of every Kollect resource. */
  public static final String GROUP = "kollect.io";
  /** The API version of every Kollect resource. */
  public static final String VERSION = "v1alpha1";
}
