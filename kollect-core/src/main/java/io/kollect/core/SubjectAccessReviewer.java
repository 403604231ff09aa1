package io.kollect.core;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Objects;

/** {@link AccessReviewer} backed by the API server's SubjectAccessReview. */
final class SubjectAccessReviewer implements AccessReviewer {

  private final KubernetesClient client;

  SubjectAccessReviewer(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  @Override
  public boolean mayListWatch(String saNamespace, String saName, String group, String resource,
      String namespace) {
    return allowed(saNamespace, saName, group, resource, namespace, "list")
        && allowed(saNamespace, saName, group, resource, namespace, "watch");
  }

  private boolean allowed(String saNamespace, String saName, String group, String resource,
      String namespace, String verb) {
    SubjectAccessReview review = new SubjectAccessReviewBuilder()
        .withNewSpec()
        .withUser("system:serviceaccount:" + saNamespace + ":" + saName)
        .withGroups(List.of("system:serviceaccounts", "system:serviceaccounts:" + saNamespace))
        .withNewResourceAttributes()
        .withGroup(group)
        .withResource(resource)
        .withVerb(verb)
        .withNamespace(namespace)
        .endResourceAttributes()
        .endSpec()
        .build();
    SubjectAccessReview answer;
    try {
      answer = client.authorization().v1().subjectAccessReview().create(review);
    } catch (KubernetesClientException e) {
      // Name what was asked and where; the cause's message carries the HTTP status.
      throw new IllegalStateException("SubjectAccessReview at " + client.getMasterUrl()
          + " for ServiceAccount " + saNamespace + "/" + saName + " (" + verb + " "
          + (group.isEmpty() ? resource : resource + "." + group) + ") failed: "
          + e.getMessage(), e);
    }
    return answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed());
  }
}
