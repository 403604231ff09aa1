package io.kollect.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** Where records go: a destination, its batching and heartbeat. Namespaced. */
@Group(KollectProfile.GROUP)
@Version(KollectProfile.VERSION)
@ShortNames("ksink")
@AdditionalPrinterColumn(name = "Type", jsonPath = ".spec.type")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Targets", jsonPath = ".status.targets", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Status", jsonPath = ".status.conditions[?(@.type==\"Ready\")].message", priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class KollectSink extends CustomResource<KollectSinkSpec, KollectSinkStatus>
    implements Namespaced {}
