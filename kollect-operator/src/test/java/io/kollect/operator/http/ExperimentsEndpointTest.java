package io.kollect.operator.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.kollect.export.InventorySink;
import io.kollect.extract.ProfileDiff;
import io.kollect.extract.Records;
import io.kollect.operator.profile.ProfileLifecycle;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /experiments/{profile}} on a real loopback listener, guarded as /inventory is. */
class ExperimentsEndpointTest {

  private final HttpClient client = HttpClient.newHttpClient();
  private OperatorHttp http;

  @TempDir Path tmp;

  private static final ProfileDiff DIFF = new ProfileDiff(3, 0, 0, 1, Map.of("labels.tier", 1L),
      0, 0, 100, 120, List.of(new ProfileDiff.ChangedRecord("/ConfigMap/lab/cm-1",
          Map.of(), Map.of("labels.tier", TextNode.valueOf("gold")))));

  private int start(InventoryAuth auth) throws Exception {
    http = new OperatorHttp(Records.mapper(), () -> List.of(), () -> "",
        () -> new InventorySink("i"), auth, profile -> profile.equals("p")
            ? Optional.of(new ProfileLifecycle.ExperimentView("p", "p-1", "p-0", "p-0", null, DIFF))
            : Optional.empty());
    http.start(BindAddress.off(), BindAddress.loopback(0));
    return http.metricsAddress().orElseThrow().getPort();
  }

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
  }

  private HttpResponse<String> get(int port, String path, String auth) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (auth != null) {
      b.header("Authorization", auth);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void anExperimentIsServedWithTheInventorysBearerTokenOnly() throws Exception {
    Path token = tmp.resolve("token");
    Files.writeString(token, "s3cret\n");
    int port = start(InventoryAuth.tokenFile(token));

    assertThat(get(port, "/experiments/p", null).statusCode()).isEqualTo(401);
    assertThat(get(port, "/experiments/p", "Bearer nope").statusCode()).isEqualTo(403);
    HttpResponse<String> ok = get(port, "/experiments/p", "Bearer s3cret");

    assertThat(ok.statusCode()).isEqualTo(200);
    JsonNode body = Records.mapper().readTree(ok.body());
    assertThat(body.path("currentRevision").asText()).isEqualTo("p-1");
    assertThat(body.path("diff").path("changed").asLong()).isEqualTo(1);
    assertThat(body.path("diff").path("samples").get(0).path("after").path("labels.tier")
        .asText()).isEqualTo("gold");
    // The CLI reads the same body back.
    assertThat(Records.mapper().treeToValue(body.path("diff"), ProfileDiff.class))
        .isEqualTo(DIFF);
  }

  @Test
  void anUnknownProfileIs404AndAMalformedPathIs400() throws Exception {
    int port = start(InventoryAuth.none());

    assertThat(get(port, "/experiments/nope", null).statusCode()).isEqualTo(404);
    assertThat(get(port, "/experiments/", null).statusCode()).isEqualTo(400);
    assertThat(get(port, "/experiments/a/b", null).statusCode()).isEqualTo(400);
  }

  @Test
  void withTheInventoryOffExperimentsAreOffToo() throws Exception {
    int port = start(InventoryAuth.disabled());

    assertThat(get(port, "/experiments/p", null).statusCode()).isEqualTo(404);
    assertThat(get(port, "/experiments/p", null).body()).contains("/experiments is off");
  }

  @Test
  void kollectExperimentDiffPrintsTheOperatorsSamples() throws Exception {
    Path token = tmp.resolve("token");
    Files.writeString(token, "s3cret\n");
    int port = start(InventoryAuth.tokenFile(token));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();

    int code = io.kollect.operator.cli.KollectCommand.execute(
        new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
        new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8),
        "experiment", "diff", "p", "--url", "http://127.0.0.1:" + port, "--token-file",
        token.toString());

    assertThat(code).as(err.toString()).isEqualTo(1);
    assertThat(out.toString()).contains("objects 3, added 0, removed 0, changed 1")
        .contains("labels.tier: 1").contains("/ConfigMap/lab/cm-1")
        .contains("labels.tier: (none) -> \"gold\"").contains("the candidate differs");
  }

  @Test
  void kollectExperimentDiffWithAWrongTokenSaysWhatTheOperatorAnswered() throws Exception {
    Path token = tmp.resolve("token");
    Files.writeString(token, "s3cret\n");
    Path wrong = tmp.resolve("wrong");
    Files.writeString(wrong, "nope\n");
    int port = start(InventoryAuth.tokenFile(token));
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();

    int code = io.kollect.operator.cli.KollectCommand.execute(
        new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true,
            java.nio.charset.StandardCharsets.UTF_8),
        new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8),
        "experiment", "diff", "p", "--url", "http://127.0.0.1:" + port, "--token-file",
        wrong.toString());

    assertThat(code).isEqualTo(1);
    assertThat(err.toString().strip()).endsWith("answered 403: the token is not valid")
        .doesNotContain("nope");
  }
}
