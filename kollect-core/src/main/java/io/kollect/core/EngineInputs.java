package io.kollect.core;

import io.kollect.export.Exporter;
import io.kollect.informers.InformerLease;
import io.kollect.informers.LeaseListener;
import io.kollect.informers.LeaseRequest;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

/**
 * What the reconciler reads from its engine: the configured profiles and sinks, the export flag,
 * the informer leases of the engine's own cluster, whether a sink is suspended, and the
 * cardinality warning threshold.
 *
 * @param catalog the profiles and sinks given
 * @param leases where leases of the engine's own cluster come from
 * @param exporter whose suspended sinks are reported
 * @param exporting whether this instance exports now
 * @param warnObjectsPerTarget objects per target above which its status warns
 */
record EngineInputs(EngineCatalog catalog,
    BiFunction<LeaseRequest, LeaseListener, InformerLease> leases, Exporter exporter,
    BooleanSupplier exporting, int warnObjectsPerTarget) implements TargetReconciler.Inputs {

  @Override
  public ProfileVersion profile(String name) {
    return catalog.profile(name);
  }

  @Override
  public boolean sinkConfigured(String name) {
    return catalog.sinkConfigured(name);
  }

  @Override
  public boolean exportEnabled() {
    return exporting.getAsBoolean();
  }

  @Override
  public InformerLease lease(LeaseRequest request, LeaseListener listener) {
    return leases.apply(request, listener);
  }

  @Override
  public boolean sinkSuspended(String name) {
    return exporter.isSinkSuspended(name);
  }
}
