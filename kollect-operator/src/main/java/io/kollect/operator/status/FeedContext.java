package io.kollect.operator.status;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.operator.crd.KindWatch;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Clock;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What every feed of a Kollect kind into the engine shares: where it reads and puts, how it
 * reports (status, problems, metrics), whether it may write (the leader), which namespaces it
 * handles, and its watches' resync.
 *
 * @param client the operator's API client
 * @param engine the hosted engine
 * @param status the one writer of status subresources
 * @param problems problems said once in the log and as Events
 * @param metrics the operator's meters
 * @param leader whether this instance leads (only the leader writes status)
 * @param namespaceFilter whether objects of a namespace are handled at all
 * @param resyncMillis the watches' resync period in milliseconds (0: none)
 * @param clock the time of conditions
 */
public record FeedContext(KubernetesClient client, KollectEngine engine, StatusWriter status,
    ProblemReports problems, OperatorMetrics metrics, BooleanSupplier leader,
    Predicate<String> namespaceFilter, long resyncMillis, Clock clock) {

  /**
   * The events of one kind's watch, as every feed handles them: {@code upsert} and {@code delete}
   * are the feed's own; a deleted object's problems and status bookkeeping are forgotten; an
   * object this operator cannot read is said once in the log and as an Event, and in its status
   * on the leader, after the feed's {@code unreadable} had its say.
   *
   * @param statusChanged told when only an object's status changed
   * @param unreadable what the feed does first with an object it cannot read (the object, the
   *     message naming it and the problem)
   */
  public <T extends HasMetadata> KindWatch.Handler<T> handler(Consumer<T> upsert,
      Consumer<HasMetadata> delete,
      BiConsumer<GenericKubernetesResource, GenericKubernetesResource> statusChanged,
      BiConsumer<GenericKubernetesResource, String> unreadable) {
    return new KindWatch.Handler<>() {
      @Override
      public void statusChanged(GenericKubernetesResource before,
          GenericKubernetesResource after) {
        statusChanged.accept(before, after);
      }

      @Override
      public void upsert(T object) {
        upsert.accept(object);
      }

      @Override
      public void delete(HasMetadata object) {
        delete.accept(object);
        problems.forget(KindWatch.describe(object));
        status.forget(KindWatch.describe(object));
      }

      @Override
      public void unreadable(GenericKubernetesResource object, String problem) {
        String what = KindWatch.describe(object);
        String message = what + ": " + problem;
        unreadable.accept(object, message);
        problems.report(object, "NotUnderstood", what, message);
        if (leader.getAsBoolean()) {
          status.write(object, ResourceStatuses.unreadable(object.getMetadata().getGeneration(),
              message, clock.instant()));
        }
      }
    };
  }

  /** The same, for a feed with nothing of its own to do on a status change or unreadable object. */
  public <T extends HasMetadata> KindWatch.Handler<T> handler(Consumer<T> upsert,
      Consumer<HasMetadata> delete) {
    return handler(upsert, delete, (before, after) -> { }, (object, message) -> { });
  }
}
