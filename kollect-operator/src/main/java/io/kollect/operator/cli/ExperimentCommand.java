package io.kollect.operator.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kollect.core.lifecycle.Experiment;
import io.kollect.core.lifecycle.ExperimentMode;
import io.kollect.core.lifecycle.ExperimentRejectedException;
import io.kollect.core.lifecycle.ExperimentTransitions;
import io.kollect.core.lifecycle.ProfileExperiments;
import io.kollect.core.lifecycle.ProfileRevision;
import io.kollect.core.lifecycle.ProfileState;
import io.kollect.extract.ExtractOptions;
import io.kollect.extract.ProfileCompiler;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.ProfileLoader;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ProfileValidationException;
import io.kollect.extract.Records;
import io.kollect.operator.profile.ControllerRevisionHistory;
import io.kollect.operator.KubeClients;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kollect experiment}: try a candidate spec on a KollectProfile, then promote or stop it
 * (docs/operations.md "Profile lifecycle"). Talks to the API server only: the operator notices
 * the status and spec changes and does the rest.
 */
@Command(
    name = "experiment",
    mixinStandardHelpOptions = true,
    description = {
      "Try a candidate profile spec in the cluster, then promote or stop it.",
      "shadow: evaluated and compared, not delivered; live: delivered. Stopping restores the",
      "baseline."
    },
    subcommands = {ExperimentCommand.Start.class, ExperimentCommand.Promote.class,
        ExperimentCommand.Stop.class, ExperimentCommand.Status.class,
        ExperimentCommand.Diff.class})
final class ExperimentCommand {

  static final String EXIT_CODES_HEADING = "%nExit codes:%n";

  /** How the commands reach the cluster: the usual kubeconfig resolution. */
  static final class ClusterOptions {
    @Option(names = "--kubeconfig", paramLabel = "FILE",
        description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster).")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME",
        description = "Kubeconfig context (default: current).")
    String context;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", defaultValue = "kollect-system",
        description = "The operator's namespace, where profile revisions are kept "
            + "(default: ${DEFAULT-VALUE}).")
    String namespace;

    KubernetesClient client() {
      try {
        return KubeClients.create(Optional.ofNullable(kubeconfig), Optional.ofNullable(context),
            KubeClients.DEFAULT_QPS, KubeClients.DEFAULT_BURST);
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage(), e);
      }
    }
  }

  /** Runs {@code action} with the experiments API; rejections and missing profiles exit 2. */
  static int run(ClusterOptions cluster, CommandSpec spec, ExperimentAction action) {
    PrintWriter out = spec.commandLine().getOut();
    try (KubernetesClient client = cluster.client()) {
      ProfileExperiments experiments = ProfileExperiments.builder(
          new ControllerRevisionHistory(client, cluster.namespace)).build();
      int code = action.run(experiments, out);
      out.flush();
      return code;
    } catch (ExperimentRejectedException | NoSuchElementException e) {
      throw new BadInputException(e.getMessage(), e);
    } catch (KubernetesClientException e) {
      spec.commandLine().getErr().println("kollect: the API server refused: "
          + firstLine(e.getMessage()));
      return 1;
    } catch (IllegalStateException e) {
      spec.commandLine().getErr().println("kollect: " + firstLine(e.getMessage()));
      return 1;
    }
  }

  interface ExperimentAction {
    int run(ProfileExperiments experiments, PrintWriter out);
  }

  @Command(name = "start", mixinStandardHelpOptions = true,
      description = "Start an experiment: the candidate becomes the profile's spec, the current "
          + "spec its baseline.",
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {"0:started (or a retry of the same start completed)",
          "1:the API server failed", "2:bad input, or an experiment is already running"})
  static final class Start implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClusterOptions cluster;

    @Parameters(paramLabel = "PROFILE", description = "The KollectProfile.")
    String profile;

    @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE",
        description = "The candidate: a KollectProfile manifest (its spec) or a bare spec.")
    Path file;

    @Option(names = "--id", required = true, paramLabel = "ID",
        description = "The experiment's id; promote and stop must name it.")
    String id;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "shadow",
        description = "shadow (sinks keep the baseline) or live (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30m",
        converter = Converters.GoDuration.class,
        description = "Roll back automatically after this long (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() {
      ExperimentMode m;
      try {
        m = ExperimentMode.fromWire(mode);
      } catch (IllegalArgumentException e) {
        throw new BadInputException("--" + e.getMessage());
      }
      ProfileSpec candidate = candidate(file);
      return run(cluster, spec, (experiments, out) -> {
        Experiment e = experiments.start(profile, new ProfileExperiments.StartRequest(id,
            candidate, m, timeout));
        out.printf("experiment %s started on %s (%s, deadline %s): baseline %s, candidate %s%n",
            e.id(), profile, e.mode().wire(), e.deadline(), e.baselineRevision(),
            ProfileRevision.name(profile, e.expectedSpecHash()));
        return 0;
      });
    }
  }

  /** The candidate spec of a file, compiled once so an invalid one is refused here (exit 2). */
  static ProfileSpec candidate(Path file) {
    if (!Files.isReadable(file)) {
      throw new BadInputException("--file: " + file + " does not exist or is not readable");
    }
    try {
      ProfileLoader.NamedSpec named = ProfileLoader.loadNamed(file);
      ProfileCompiler.compile(named.name(), named.spec(), ExtractOptions.none());
      return named.spec();
    } catch (ProfileValidationException e) {
      throw new BadInputException("--file: " + firstLine(e.getMessage()), e);
    }
  }

  @Command(name = "promote", mixinStandardHelpOptions = true,
      description = "Keep the running experiment's candidate.",
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {"0:promoted", "1:the API server failed",
          "2:no such experiment running (wrong id or phase)"})
  static final class Promote implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClusterOptions cluster;

    @Parameters(paramLabel = "PROFILE", description = "The KollectProfile.")
    String profile;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "The experiment.")
    String id;

    @Override
    public Integer call() {
      return run(cluster, spec, (experiments, out) -> {
        experiments.promote(profile, id);
        out.printf("experiment %s on %s promoted%n", id, profile);
        return 0;
      });
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop the running experiment: the baseline spec is restored (rollback).",
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {"0:rolled back", "1:the API server failed",
          "2:no such experiment running (wrong id or phase)"})
  static final class Stop implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClusterOptions cluster;

    @Parameters(paramLabel = "PROFILE", description = "The KollectProfile.")
    String profile;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "The experiment.")
    String id;

    @Override
    public Integer call() {
      return run(cluster, spec, (experiments, out) -> {
        Experiment e = experiments.stop(profile, id);
        out.printf("experiment %s on %s rolled back to %s%n", id, profile,
            e.baselineRevision());
        return 0;
      });
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "The profile's revisions and experiment.")
  static final class Status implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ClusterOptions cluster;

    @Parameters(paramLabel = "PROFILE", description = "The KollectProfile.")
    String profile;

    @Override
    public Integer call() {
      return run(cluster, spec, (experiments, out) -> {
        ProfileState s = experiments.status(profile).orElseThrow(() ->
            new NoSuchElementException("KollectProfile " + profile + " does not exist"));
        printStatus(profile, s, out);
        return 0;
      });
    }
  }

  static void printStatus(String profile, ProfileState s, PrintWriter out) {
    out.printf("profile: %s%n", profile);
    out.printf("currentRevision: %s%n", orNone(s.currentRevision()));
    out.printf("previousRevision: %s%n", orNone(s.previousRevision()));
    out.printf("deliveredRevision: %s%n", orNone(s.deliveredRevision()));
    Experiment e = s.experiment();
    if (e == null) {
      out.println("experiment: (none)");
      return;
    }
    out.printf("experiment: %s%n", e.id());
    out.printf("  phase: %s%n", e.phase().wire());
    out.printf("  mode: %s%n", e.mode().wire());
    out.printf("  startedAt: %s%n", e.startedAt());
    out.printf("  deadline: %s%n", e.deadline());
    out.printf("  baselineRevision: %s%n", e.baselineRevision());
    out.printf("  candidateRevision: %s%n", ProfileRevision.name(profile, e.expectedSpecHash()));
    if (e.finishedAt() != null) {
      out.printf("  finishedAt: %s (cleared after %s)%n", e.finishedAt(),
          e.finishedAt().plus(ExperimentTransitions.TERMINAL_RETENTION));
    }
    if (e.message() != null) {
      out.printf("  message: %s%n", e.message());
    }
  }

  @Command(name = "diff", mixinStandardHelpOptions = true,
      description = {"What the running shadow experiment's candidate would deliver compared",
          "with the baseline: the summary from status, and with --url the operator's samples",
          "of changed records (GET /experiments/PROFILE, the bearer token of /inventory)."},
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {"0:no difference (or no diff yet)", "1:the candidate differs, or a request "
          + "failed", "2:bad input"})
  static final class Diff implements Callable<Integer> {
    private static final ObjectMapper JSON = Records.mapper();

    @Spec CommandSpec spec;
    @Mixin ClusterOptions cluster;

    @Parameters(paramLabel = "PROFILE", description = "The KollectProfile.")
    String profile;

    @Option(names = "--url", paramLabel = "URL",
        description = "The operator's metrics address, e.g. http://localhost:8080 (a "
            + "port-forward), for samples of changed records.")
    URI url;

    @Option(names = "--token-file", paramLabel = "FILE",
        description = "The bearer token of /inventory and /experiments.")
    Path tokenFile;

    @Override
    public Integer call() {
      if (url != null) {
        return fromOperator();
      }
      return run(cluster, spec, (experiments, out) -> {
        Optional<ProfileDiff> diff = experiments.diff(profile);
        if (experiments.status(profile).isEmpty()) {
          throw new NoSuchElementException("KollectProfile " + profile + " does not exist");
        }
        if (diff.isEmpty()) {
          out.println("no diff yet (only a running shadow experiment has one)");
          return 0;
        }
        DiffPrinter.print(diff.get(), out);
        return diff.get().differs() ? 1 : 0;
      });
    }

    private int fromOperator() {
      HttpRequest.Builder request = HttpRequest.newBuilder(url.resolve("/experiments/"
          + profile)).timeout(Duration.ofSeconds(30)).GET();
      if (tokenFile != null) {
        try {
          request.header("Authorization", "Bearer " + Files.readString(tokenFile).strip());
        } catch (IOException e) {
          throw new BadInputException("--token-file: " + tokenFile + " cannot be read", e);
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      try {
        HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(),
            HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
          spec.commandLine().getErr().println("kollect: " + url + " answered "
              + response.statusCode() + ": " + firstLine(response.body()));
          return 1;
        }
        ExperimentView view = JSON.readValue(response.body(), ExperimentView.class);
        if (view.diff() == null) {
          out.println("no diff yet (only a running shadow experiment has one)");
          out.flush();
          return 0;
        }
        DiffPrinter.print(view.diff(), out);
        return view.diff().differs() ? 1 : 0;
      } catch (IOException e) {
        spec.commandLine().getErr().println("kollect: " + url + ": " + e.getMessage());
        return 1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      }
    }
  }

  /** The body of {@code GET /experiments/PROFILE} as far as the CLI reads it. */
  @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
  record ExperimentView(String profile, ProfileDiff diff) {}

  private static String orNone(String s) {
    return s == null ? "(none)" : s;
  }

  static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
