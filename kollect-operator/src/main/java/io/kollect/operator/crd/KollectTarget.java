package io.kollect.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** Which objects to apply a profile to, and where to send the records. Namespaced. */
@Group(KollectProfile.GROUP)
@Version(KollectProfile.VERSION)
@ShortNames("ktarget")
@AdditionalPrinterColumn(name = "Profile", jsonPath = ".spec.profileRef")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(name = "Objects", jsonPath = ".status.objects", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Status", jsonPath = ".status.conditions[?(@.type==\"Ready\")].message", priority = 1)
@AdditionalPrinterColumn(name = "Last Export", jsonPath = ".status.lastExportTime", type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class KollectTarget extends CustomResource<KollectTargetSpec, KollectTargetStatus>
    implements Namespaced {}
