package io.kollect.operator.status;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Kubernetes {@code Warning} Event on a Kollect resource when a problem with it is first
 * seen, so that {@code kubectl describe} shows it next to the status. Cluster-scoped objects get
 * their events in {@code default}, where kubectl looks for them.
 */
public final class ProblemEvents {

  private static final Logger log = LoggerFactory.getLogger(ProblemEvents.class);

  private final KubernetesClient client;

  public ProblemEvents(KubernetesClient client) {
    this.client = client;
  }

  public void warn(HasMetadata object, String reason, String message) {
    String ns = object.getMetadata().getNamespace() == null ? "default" : object.getMetadata().getNamespace();
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    Event event = new EventBuilder()
        .withNewMetadata()
        .withGenerateName(object.getMetadata().getName() + ".")
        .withNamespace(ns)
        .endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder()
            .withApiVersion(object.getApiVersion())
            .withKind(object.getKind())
            .withName(object.getMetadata().getName())
            .withNamespace(object.getMetadata().getNamespace())
            .withUid(object.getMetadata().getUid())
            .withResourceVersion(object.getMetadata().getResourceVersion())
            .build())
        .withType("Warning")
        .withReason(reason)
        .withMessage(message.length() > 1000 ? message.substring(0, 1000) + "..." : message)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withNewSource().withComponent("kollect").endSource()
        .withReportingComponent("kollect")
        .build();
    try {
      client.v1().events().inNamespace(ns).resource(event).create();
    } catch (KubernetesClientException e) {
      // Events are a convenience; the status condition and the log line carry the problem.
      log.debug("cannot record event on {} {}: {}", object.getKind(), object.getMetadata().getName(),
          e.getMessage());
    }
  }
}
