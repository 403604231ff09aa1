package io.kollect.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Part of the current records of one target, written by Kollect (never by users): named {@code
 * <target>-<part>}, labelled {@code kollect.io/target}, owned by the KollectTarget.
 */
@Group(KollectProfile.GROUP)
@Version(KollectProfile.VERSION)
@ShortNames("kinv")
@AdditionalPrinterColumn(name = "Target", jsonPath = ".spec.target")
@AdditionalPrinterColumn(name = "Part", jsonPath = ".spec.part", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Parts", jsonPath = ".spec.parts", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Records", jsonPath = ".spec.recordCount", type = AdditionalPrinterColumn.Type.INTEGER)
public class KollectInventory extends CustomResource<KollectInventorySpec, Void>
    implements Namespaced {}
