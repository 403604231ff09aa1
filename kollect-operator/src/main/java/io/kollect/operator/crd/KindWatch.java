package io.kollect.operator.crd;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kollect.core.ClientJson;
import io.kollect.operator.targets.ReconcileRequests;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A watch of one Kollect kind that a single object cannot end.
 *
 * <p>fabric8's typed informer deserialises every object into the CRD class inside the watch; one
 * object it cannot read (a {@code type} value or a field from a newer CRD) fails the watch, which
 * then stops for good and every later change of the kind goes unseen. This watch reads objects as
 * {@link GenericKubernetesResource}, which never fails, and reads each into the CRD class in the
 * event handler: an object that does not read goes to {@link Handler#unreadable} with one line
 * saying what is not understood, and the watch goes on.
 *
 * <p>The spec is read strictly (an unknown field is reported, not dropped: a newer CRD's field
 * this operator would silently ignore is a setting the user believes is applied); the rest of the
 * object leniently, since a status written by a newer operator is not the user's intent.
 *
 * @param <T> the CRD class
 */
public final class KindWatch<T extends HasMetadata> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KindWatch.class);
  /**
   * Checks a spec field by field before the client reads it, for messages that name the field.
   * Free-form JSON fields of the CRD classes are the client's own tree type (another Jackson
   * line): read here as this mapper's tree and copied.
   */
  private static final ObjectMapper STRICT = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .registerModule(new SimpleModule().addDeserializer(tools.jackson.databind.JsonNode.class,
          new StdDeserializer<>(tools.jackson.databind.JsonNode.class) {
            @Override
            public tools.jackson.databind.JsonNode deserialize(JsonParser p,
                DeserializationContext ctxt) throws java.io.IOException {
              return ClientJson.toClient(p.readValueAsTree());
            }

            @Override
            public tools.jackson.databind.JsonNode getNullValue(DeserializationContext ctxt) {
              return tools.jackson.databind.node.JsonNodeFactory.instance.nullNode();
            }
          }));

  /** What happens to objects of the kind. */
  public interface Handler<T> {
    /** An object was added or its spec changed (status-only updates are not reported). */
    void upsert(T object);

    /** An object was deleted (the last state seen, readable or not). */
    void delete(HasMetadata object);

    /** An object (added or changed) cannot be read; {@code problem} says what is not understood. */
    void unreadable(GenericKubernetesResource object, String problem);

    /**
     * Only the status changed (a profile's experiment is driven by its status; a sharded
     * target's top level by the shards' entries).
     */
    default void statusChanged(GenericKubernetesResource before, GenericKubernetesResource after) {
    }
  }

  private final KubernetesClient client;
  private final Class<T> type;
  private final Class<?> specType;
  private final SharedIndexInformer<GenericKubernetesResource> informer;

  public KindWatch(KubernetesClient client, Class<T> type, Class<?> specType, boolean namespaced,
      long resyncMillis, Handler<T> handler) {
    this.client = client;
    this.type = type;
    this.specType = specType;
    var resources = client.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(type));
    this.informer = namespaced
        ? resources.inAnyNamespace().runnableInformer(resyncMillis)
        : resources.runnableInformer(resyncMillis);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        dispatch(obj, handler);
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        Long before = oldObj.getMetadata().getGeneration();
        Long after = newObj.getMetadata().getGeneration();
        // Status writes bump resourceVersion, not generation: nothing to reconcile for those (a
        // forced reconcile is an annotation, which bumps neither). Labels do not bump it either,
        // yet selectors pick by them (KollectCluster).
        if (before != null && before.equals(after)
            && Objects.equals(oldObj.getMetadata().getUid(), newObj.getMetadata().getUid())
            && Objects.equals(oldObj.getMetadata().getLabels(), newObj.getMetadata().getLabels())
            && !ReconcileRequests.changed(oldObj, newObj)) {
          guard(newObj, () -> handler.statusChanged(oldObj, newObj));
          return;
        }
        dispatch(newObj, handler);
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
        guard(obj, () -> handler.delete(read(obj).map(t -> (HasMetadata) t).orElse(obj)));
      }
    });
  }

  private void dispatch(GenericKubernetesResource obj, Handler<T> handler) {
    guard(obj, () -> {
      T typed;
      try {
        typed = readOrThrow(obj);
      } catch (IllegalArgumentException e) {
        handler.unreadable(obj, e.getMessage());
        return;
      }
      handler.upsert(typed);
    });
  }

  private static void guard(HasMetadata obj, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      // Never let one object break the watch: say which object and move on.
      log.error("{} {}: {}", obj.getKind(), obj.getMetadata().getName(), e.toString(), e);
    }
  }

  /** Starts listing and watching; completes when the first list is in. */
  public CompletionStage<Void> start() {
    return informer.start();
  }

  /**
   * Starts and waits for the first list of this Kollect resource; a failure here (API server
   * unreachable, CRDs not installed, no permission) stops the start with one line saying which.
   *
   * @param what the kind's plural, for the message
   */
  public void startAndAwaitListed(String what) {
    try {
      start().toCompletableFuture().get(2, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause.getCause() != null && cause.getCause() != cause) {
        if (cause instanceof KubernetesClientException k && k.getCode() > 0) {
          break;
        }
        cause = cause.getCause();
      }
      String hint = "";
      if (cause instanceof KubernetesClientException k && k.getCode() == 404) {
        hint = " (are the Kollect CRDs installed? kubectl apply -k deploy/crds)";
      } else if (cause instanceof KubernetesClientException k && k.getCode() == 403) {
        hint = " (the operator's service account lacks list/watch on it: see deploy/rbac)";
      }
      throw new IllegalStateException("cannot list " + what + " at " + client.getMasterUrl() + ": "
          + firstLine(String.valueOf(cause.getMessage())) + hint, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("cannot list " + what + ": no answer from the API server in 2 minutes", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing " + what, e);
    }
  }

  /** {@code Kind namespace/name} or {@code Kind name}. */
  public static String describe(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return o.getKind() + " " + (ns == null ? "" : ns + "/") + o.getMetadata().getName();
  }

  public boolean hasSynced() {
    return informer.hasSynced();
  }

  /** The readable object with this key ({@code namespace/name}, or {@code name}), if any. */
  public Optional<T> get(String key) {
    GenericKubernetesResource obj = informer.getStore().getByKey(key);
    return obj == null ? Optional.empty() : read(obj);
  }

  /** The object with this key as cached, readable or not (status writes start from it). */
  public Optional<GenericKubernetesResource> cached(String key) {
    return Optional.ofNullable(informer.getStore().getByKey(key));
  }

  /** Every readable object. */
  public List<T> list() {
    List<T> out = new ArrayList<>();
    for (GenericKubernetesResource obj : informer.getStore().list()) {
      read(obj).ifPresent(out::add);
    }
    return out;
  }

  private Optional<T> read(GenericKubernetesResource obj) {
    try {
      return Optional.of(readOrThrow(obj));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * Reads an object into the CRD class.
   *
   * @throws IllegalArgumentException with one line naming the field and what is not understood
   */
  T readOrThrow(GenericKubernetesResource obj) {
    Object spec = obj.getAdditionalProperties().get("spec");
    if (spec != null && specType != null) {
      try {
        STRICT.treeToValue(STRICT.valueToTree(spec), specType);
      } catch (JsonProcessingException | IllegalArgumentException e) {
        throw new IllegalArgumentException(notUnderstood(e));
      }
    }
    try {
      return client.getKubernetesSerialization().convertValue(obj, type);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(notUnderstood(e));
    }
  }

  /** One line: the field path and what about it this operator does not understand. */
  static String notUnderstood(Throwable e) {
    Throwable t = e;
    while (!(t instanceof JsonMappingException) && t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    if (!(t instanceof JsonMappingException m)) {
      return "not understood by this operator: " + firstLine(e.getMessage());
    }
    String path = "spec" + m.getPath().stream()
        .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining());
    if (m instanceof UnrecognizedPropertyException) {
      return path + ": unknown field, not understood by this operator (a newer CRD's field?)";
    }
    if (m instanceof InvalidFormatException f && f.getTargetType() != null
        && f.getTargetType().isEnum()) {
      String known = Arrays.stream(f.getTargetType().getEnumConstants())
          .map(KindWatch::jsonName).collect(Collectors.joining(", "));
      return path + ": '" + f.getValue() + "' is not understood by this operator (known: "
          + known + ")";
    }
    return path + ": not understood by this operator: " + firstLine(m.getOriginalMessage());
  }

  private static String jsonName(Object constant) {
    try {
      var field = ((Enum<?>) constant).getDeclaringClass().getField(((Enum<?>) constant).name());
      var property = field.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
      return property != null ? property.value() : ((Enum<?>) constant).name();
    } catch (NoSuchFieldException e) {
      return String.valueOf(constant);
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** The JSON of an object's spec, for messages and tests. */
  static JsonNode specOf(GenericKubernetesResource obj) {
    return STRICT.valueToTree(obj.getAdditionalProperties().get("spec"));
  }

  @Override
  public void close() {
    informer.close();
  }
}
