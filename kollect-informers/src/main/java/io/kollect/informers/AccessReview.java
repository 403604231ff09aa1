package io.kollect.informers;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Optional;

/**
 * Checks with SelfSubjectAccessReview what the client's identity may read, before anything is
 * watched: a forbidden watch would otherwise retry forever and never sync.
 */
final class AccessReview {

  /**
   * The answer for one scope.
   *
   * @param allowed whether both list and watch are allowed
   * @param detail why not, for status messages
   */
  record Decision(boolean allowed, String detail) {}

  private final KubernetesClient client;

  AccessReview(KubernetesClient client) {
    this.client = client;
  }

  /** list + watch of {@code group/plural} in {@code namespace} ({@code null}: cluster-wide). */
  Decision listWatch(String group, String plural, String namespace) {
    for (String verb : List.of("list", "watch")) {
      Decision d = check(group, plural, namespace, verb);
      if (!d.allowed()) {
        return d;
      }
    }
    return new Decision(true, null);
  }

  /** Names of all namespaces, or empty when this identity may not list them. */
  Optional<List<String>> namespaceNames() {
    if (!check("", "namespaces", null, "list").allowed()) {
      return Optional.empty();
    }
    return Optional.of(client.namespaces().list().getItems().stream()
        .map(Namespace::getMetadata).map(m -> m.getName()).sorted().toList());
  }

  private Decision check(String group, String plural, String namespace, String verb) {
    SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder()
        .withNewSpec()
        .withNewResourceAttributes()
        .withGroup(group)
        .withResource(plural)
        .withVerb(verb)
        .withNamespace(namespace)
        .endResourceAttributes()
        .endSpec()
        .build();
    SelfSubjectAccessReview answer =
        client.authorization().v1().selfSubjectAccessReview().create(review);
    boolean allowed = answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed());
    if (allowed) {
      return new Decision(true, null);
    }
    String scope = namespace == null ? "cluster-wide" : "in namespace " + namespace;
    String resource = group.isEmpty() ? plural : plural + "." + group;
    String reason = answer.getStatus() == null ? null : answer.getStatus().getReason();
    return new Decision(false, verb + " " + resource + " " + scope + " is forbidden"
        + (reason == null || reason.isBlank() ? "" : " (" + reason + ")"));
  }
}
