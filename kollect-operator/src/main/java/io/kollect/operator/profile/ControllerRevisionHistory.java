package io.kollect.operator.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kollect.core.lifecycle.Experiment;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.core.lifecycle.ProfileHistory;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.ProfileSpec;
import io.kollect.operator.crd.KollectProfile;
import io.kollect.operator.targets.CrTranslation;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link ProfileHistory} on the cluster: a KollectProfile's spec and status ({@code
 * currentRevision}, {@code previousRevision}, {@code deliveredRevision}, {@code experiment}) are
 * the profile's, and each revision is a {@code ControllerRevision} in the operator's namespace,
 * named {@link ProfileRevision#name}, labelled {@value #PROFILE_LABEL} with {@link
 * ProfileRevision#profileLabel} and owned by the profile.
 *
 * <p>The profile is cluster-scoped and its revisions are namespaced: a namespaced dependent may
 * name a cluster-scoped owner, so the cluster's garbage collector deletes a deleted profile's
 * revisions (the reverse would be refused). The long-name label is a shortened name, so the
 * profile's full name is also kept in the {@value #PROFILE_ANNOTATION} annotation and revisions
 * are matched on it.
 *
 * <p>State writes are compare-and-set: a PUT of the status guarded by the resourceVersion the
 * snapshot was read at (a 409 is a lost race, not an error). Revisions never change once
 * written, so what was read or written once is cached.
 */
public final class ControllerRevisionHistory implements ProfileHistory {

  /** The label naming the profile (shortened to a label value) on its revisions. */
  public static final String PROFILE_LABEL = "kollect.io/profile";
  /** The annotation with the profile's full name on its revisions. */
  public static final String PROFILE_ANNOTATION = "kollect.io/profile-name";
  /** The annotation with the whole md5 of the revision's canonical spec. */
  public static final String HASH_ANNOTATION = "kollect.io/spec-hash";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final String namespace;
  private final Cache<String, ProfileRevision> revisions =
      Caffeine.newBuilder().maximumSize(1_000).build();

  /** Revisions of profiles in {@code namespace} (the operator's). */
  public ControllerRevisionHistory(KubernetesClient client, String namespace) {
    this.client = Objects.requireNonNull(client, "client");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
  }

  @Override
  public Optional<Snapshot> read(String profile) {
    KollectProfile p = client.resources(KollectProfile.class).withName(profile).get();
    if (p == null) {
      return Optional.empty();
    }
    ProfileState state = ProfileStates.from(p.getStatus());
    return Optional.of(new Snapshot(effectiveSpec(p, state), state,
        p.getMetadata().getResourceVersion()));
  }

  /**
   * The profile's spec as the lifecycle sees it: the candidate of a declared experiment while
   * that experiment runs ({@link DeclaredExperiment}), else {@code spec}.
   */
  private static ProfileSpec effectiveSpec(KollectProfile p, ProfileState state) {
    ProfileSpec spec = CrTranslation.profile(p);
    Experiment e = state.experiment();
    if (e == null || !e.running()) {
      return spec;
    }
    Optional<ProfileExperiments.StartRequest> declared = declaredOrEmpty(p);
    if (declared.isPresent() && declared.get().id().equals(e.id())
        && ProfileRevision.specHash(declared.get().candidate()).equals(e.expectedSpecHash())) {
      return declared.get().candidate();
    }
    return spec;
  }

  private static Optional<ProfileExperiments.StartRequest> declaredOrEmpty(KollectProfile p) {
    try {
      return DeclaredExperiment.of(p);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The experiment the profile declares in its annotation, if any.
   *
   * @throws IllegalArgumentException naming the annotation when it cannot be read
   */
  Optional<ProfileExperiments.StartRequest> declared(String profile) {
    KollectProfile p = client.resources(KollectProfile.class).withName(profile).get();
    return p == null ? Optional.empty() : DeclaredExperiment.of(p);
  }

  @Override
  public boolean writeState(String profile, String version, ProfileState state) {
    KollectProfile p = client.resources(KollectProfile.class).withName(profile).get();
    if (p == null) {
      throw new NoSuchElementException("KollectProfile " + profile + " does not exist");
    }
    if (!Objects.equals(p.getMetadata().getResourceVersion(), version)) {
      return false;
    }
    p.setStatus(ProfileStates.apply(p.getStatus(), state));
    try {
      client.resources(KollectProfile.class).resource(p).updateStatus();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return false;
      }
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        throw new NoSuchElementException("KollectProfile " + profile + " does not exist");
      }
      throw e;
    }
  }

  @Override
  public void writeSpec(String profile, ProfileSpec spec) {
    KollectProfile p = client.resources(KollectProfile.class).withName(profile).get();
    if (p == null) {
      throw new NoSuchElementException("KollectProfile " + profile + " does not exist");
    }
    Optional<ProfileExperiments.StartRequest> declared = declaredOrEmpty(p);
    String hash = ProfileRevision.specHash(spec);
    if (hash.equals(ProfileRevision.specHash(CrTranslation.profile(p)))
        || declared.map(d -> ProfileRevision.specHash(d.candidate()).equals(hash))
            .orElse(false)) {
      // Already the spec, or a declared candidate: it stays in the annotation, the spec (owned
      // by whoever applies the manifest) is not touched.
      return;
    }
    ObjectNode patch = JSON.createObjectNode();
    JsonNode canonical = canonicalTree(spec);
    patch.putObject("spec").set("resources", canonical.path("resources"));
    try {
      client.resources(KollectProfile.class).withName(profile)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        throw new NoSuchElementException("KollectProfile " + profile + " does not exist");
      }
      throw e;
    }
  }

  @Override
  public void saveRevision(ProfileRevision revision) {
    if (revisions.getIfPresent(revision.name()) != null) {
      return;
    }
    KollectProfile owner = client.resources(KollectProfile.class)
        .withName(revision.profile()).get();
    if (owner == null) {
      throw new NoSuchElementException("KollectProfile " + revision.profile()
          + " does not exist");
    }
    long next = 1 + revisionObjects(revision.profile()).stream()
        .mapToLong(r -> r.getRevision() == null ? 0 : r.getRevision()).max().orElse(0);
    ControllerRevision object = new ControllerRevisionBuilder()
        .withMetadata(new ObjectMetaBuilder().withName(revision.name()).withNamespace(namespace)
            .addToLabels(PROFILE_LABEL, ProfileRevision.profileLabel(revision.profile()))
            .addToLabels("app.kubernetes.io/managed-by", "kollect")
            .addToAnnotations(PROFILE_ANNOTATION, revision.profile())
            .addToAnnotations(HASH_ANNOTATION, revision.specHash())
            .withOwnerReferences(new OwnerReferenceBuilder()
                .withApiVersion(KollectProfile.GROUP + "/" + KollectProfile.VERSION)
                .withKind("KollectProfile").withName(revision.profile())
                .withUid(owner.getMetadata().getUid()).withController(true).build())
            .build())
        .withData(JSON.convertValue(canonicalTree(revision.spec()), Map.class))
        .withRevision(next)
        .build();
    try {
      client.resource(object).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // It exists: a name is its content, so it is this revision (or a profile whose long name
      // shares the label and hash prefix, which revision() tells apart by the annotation).
    }
    revisions.put(revision.name(), revision);
  }

  @Override
  public Optional<ProfileRevision> revision(String profile, String name) {
    ProfileRevision cached = revisions.getIfPresent(name);
    if (cached != null && cached.profile().equals(profile)) {
      return Optional.of(cached);
    }
    ControllerRevision r = client.resources(ControllerRevision.class).inNamespace(namespace)
        .withName(name).get();
    if (r == null || !profile.equals(annotation(r, PROFILE_ANNOTATION))) {
      return Optional.empty();
    }
    ProfileSpec spec = ProfileRevision.parseCanonical(
        client.getKubernetesSerialization().asJson(r.getData()));
    String hash = annotation(r, HASH_ANNOTATION);
    ProfileRevision revision = new ProfileRevision(profile, name,
        hash == null ? ProfileRevision.specHash(spec) : hash, spec);
    revisions.put(name, revision);
    return Optional.of(revision);
  }

  @Override
  public List<String> revisions(String profile) {
    return revisionObjects(profile).stream().map(r -> r.getMetadata().getName()).sorted()
        .toList();
  }

  @Override
  public void deleteRevision(String profile, String name) {
    client.resources(ControllerRevision.class).inNamespace(namespace).withName(name).delete();
    revisions.invalidate(name);
  }

  private List<ControllerRevision> revisionObjects(String profile) {
    return client.resources(ControllerRevision.class).inNamespace(namespace)
        .withLabel(PROFILE_LABEL, ProfileRevision.profileLabel(profile)).list().getItems()
        .stream().filter(r -> profile.equals(annotation(r, PROFILE_ANNOTATION))).toList();
  }

  private static String annotation(ControllerRevision r, String key) {
    Map<String, String> a = r.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static JsonNode canonicalTree(ProfileSpec spec) {
    try {
      return JSON.readTree(ProfileRevision.canonicalJson(spec));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
