package io.kollect.core;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Decides what a target's ServiceAccount may read: the tenant boundary of an engine that serves
 * targets on behalf of others (see {@link KollectEngineBuilder#trustedNamespaces}).
 *
 * <p>The engine asks once per (ServiceAccount, resource, namespace), caches the answer and asks
 * again every {@link KollectEngineBuilder#accessReviewInterval access review interval}; it never
 * asks per informer event. Implementations are called from reconcile workers and from the
 * engine's re-check thread, so they must be thread-safe; an exception means "unknown" (the
 * reconcile is retried with backoff, a re-check keeps the last answer).
 *
 * <p>The default, {@link #subjectAccessReviews(KubernetesClient)}, asks the API server with a
 * SubjectAccessReview; embedders with their own policy engine supply theirs.
 */
@FunctionalInterface
public interface AccessReviewer {

  /**
   * Whether the ServiceAccount may both list and watch {@code resource} of {@code group}.
   *
   * @param saNamespace the ServiceAccount's namespace
   * @param saName the ServiceAccount's name
   * @param group API group, {@code ""} for the core group
   * @param resource the resource's plural name as RBAC rules name it (e.g. {@code configmaps})
   * @param namespace the namespace to read, or {@code null} for all namespaces (cluster-wide)
   */
  boolean mayListWatch(String saNamespace, String saName, String group, String resource,
      String namespace);

  /**
   * Asks the API server with a {@code SubjectAccessReview} per verb ({@code list}, {@code watch})
   * for user {@code system:serviceaccount:NS:NAME} in groups {@code system:serviceaccounts} and
   * {@code system:serviceaccounts:NS}. The answer does not depend on whether the ServiceAccount
   * object exists. The client's identity needs {@code create} on {@code
   * subjectaccessreviews.authorization.k8s.io}.
   */
  static AccessReviewer subjectAccessReviews(KubernetesClient client) {
    return new SubjectAccessReviewer(client);
  }
}
