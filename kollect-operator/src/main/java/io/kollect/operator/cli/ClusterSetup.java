package io.kollect.operator.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** Installs the Kollect CRDs and sample catalog from the classpath into a cluster (the demo). */
final class ClusterSetup {

  /** The generated CRDs, as the crd-generator names them on the classpath. */
  static final List<String> CRDS = List.of(
      "kollectprofiles.kollect.io", "kollecttargets.kollect.io", "kollectsinks.kollect.io",
      "kollectinventories.kollect.io", "kollectclusters.kollect.io");

  private final KubernetesClient client;

  ClusterSetup(KubernetesClient client) {
    this.client = client;
  }

  /** Creates (or updates) the Kollect CRDs and waits until they are served. */
  void installKollectCrds() {
    for (String name : CRDS) {
      String resource = "/META-INF/fabric8/" + name + "-v1.yml";
      try (InputStream in = ClusterSetup.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("CRD " + resource + " is not on the classpath");
        }
        for (HasMetadata crd : client.load(in).items()) {
          apply(crd);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    for (String name : CRDS) {
      awaitEstablished(name);
    }
  }

  void awaitEstablished(String crdName) {
    client.apiextensions().v1().customResourceDefinitions().withName(crdName)
        .waitUntilCondition(ClusterSetup::established, 60, TimeUnit.SECONDS);
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Creates or updates one object, creating its namespace first when needed. */
  HasMetadata apply(HasMetadata object) {
    String ns = object.getMetadata().getNamespace();
    if (ns != null && client.namespaces().withName(ns).get() == null) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns)
          .endMetadata().build()).createOr(NonDeletingOperation::update);
    }
    return client.resource(object).createOr(NonDeletingOperation::update);
  }

  /** Applies every object of a multi-document YAML file. */
  List<HasMetadata> applyFile(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      List<HasMetadata> applied = new ArrayList<>();
      for (HasMetadata object : client.load(in).items()) {
        if (object != null) {
          applied.add(apply(object));
        }
      }
      return applied;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Applies every sample under {@code kollect/samples/} on the classpath: the catalog-wide files
   * (the samples' tenant RBAC) first, then per sample fixture CRDs, profile, target and inputs.
   *
   * @param onSample told each sample's name before it is applied
   * @return the sample names applied
   */
  List<String> applySamples(Consumer<String> onSample) {
    return onClasspath("/kollect/samples", root -> applySamples(root, onSample), List.of());
  }

  /**
   * Applies the YAML files of a classpath directory, then those of its {@code input}
   * subdirectory, each in name order (the demo's second cluster).
   *
   * @return the objects applied
   */
  List<HasMetadata> applyDirectory(String classpathDir) {
    return onClasspath(classpathDir, dir -> {
      List<HasMetadata> applied = new ArrayList<>();
      for (Path file : yamlFiles(dir)) {
        applied.addAll(applyFile(file));
      }
      for (Path file : yamlFiles(dir.resolve("input"))) {
        applied.addAll(applyFile(file));
      }
      return applied;
    }, List.of());
  }

  /** Applies one YAML file of the classpath. */
  List<HasMetadata> applyResource(String classpathFile) {
    return onClasspath(classpathFile, this::applyFile, List.of());
  }

  private interface PathFunction<T> {
    T apply(Path path) throws IOException;
  }

  /** Runs {@code f} on a classpath path, in the jar or in a build's directory. */
  private static <T> T onClasspath(String resource, PathFunction<T> f, T absent) {
    URL url = ClusterSetup.class.getResource(resource);
    if (url == null) {
      return absent;
    }
    try {
      URI uri = url.toURI();
      if ("jar".equals(uri.getScheme())) {
        try (FileSystem fs = FileSystems.newFileSystem(uri, Map.of())) {
          return f.apply(fs.getPath(resource));
        }
      }
      return f.apply(Path.of(uri));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<String> applySamples(Path root, Consumer<String> onSample) throws IOException {
    List<Path> samples;
    try (Stream<Path> dirs = Files.list(root)) {
      samples = dirs.filter(Files::isDirectory).filter(d -> Files.exists(d.resolve("profile.yaml")))
          .sorted().toList();
    }
    // Catalog-wide objects first: the Role and RoleBinding the sample targets' ServiceAccount
    // needs to read the sample kinds (the tenant model, docs/operations.md).
    for (Path shared : yamlFiles(root)) {
      applyFile(shared);
    }
    List<String> names = new ArrayList<>();
    for (Path sample : samples) {
      String name = sample.getFileName().toString().replace("/", "");
      onSample.accept(name);
      for (Path crd : yamlFiles(sample.resolve("crds"))) {
        for (HasMetadata applied : applyFile(crd)) {
          awaitEstablished(applied.getMetadata().getName());
        }
      }
      applyFile(sample.resolve("profile.yaml"));
      if (Files.exists(sample.resolve("target.yaml"))) {
        applyFile(sample.resolve("target.yaml"));
      }
      for (Path input : yamlFiles(sample.resolve("input"))) {
        applyFile(input);
      }
      names.add(name);
    }
    return names;
  }

  private static List<Path> yamlFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().matches(".*\\.ya?ml")).sorted().toList();
    }
  }
}
