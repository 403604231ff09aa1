package io.kollect.export.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.kollect.export.Exporter;
import io.kollect.export.FileSink;
import io.kollect.export.SinkOptions;
import io.kollect.export.StdoutSink;
import io.kollect.extract.GroupVersionKind;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Records per second through the exporter: the diff plus delivery to a stdout sink writing to a
 * null stream, the diff plus delivery to a file sink (fsync per batch), and a converge of an
 * unchanged set (pure dedupe, nothing delivered). Each invocation converges one target of
 * {@value #OBJECTS} objects; the "changed" cases alternate between two versions of every object so
 * every record is new each time, and wait until the sink acknowledged all of them.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class ExportBenchmark {

  static final int OBJECTS = 10_000;
  static final SinkOptions OPTIONS = SinkOptions.defaults()
      .withLinger(Duration.ZERO)
      .withHeartbeatInterval(Duration.ZERO);

  private List<Record> versionA;
  private List<Record> versionB;
  private boolean flip;
  private Path dir;
  private Exporter stdoutExporter;
  private Exporter fileExporter;
  private Exporter dedupeExporter;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    versionA = records("a");
    versionB = records("b");
    dir = Files.createTempDirectory("kollect-export-bench");
    stdoutExporter = Exporter.builder().build();
    stdoutExporter.addSink(StdoutSink.to("stdout", OutputStream.nullOutputStream()), OPTIONS);
    fileExporter = Exporter.builder().build();
    fileExporter.addSink(
        new FileSink("file", dir.resolve("records.jsonl"), 64L * 1024 * 1024, 1), OPTIONS);
    dedupeExporter = Exporter.builder().build();
    dedupeExporter.addSink(StdoutSink.to("stdout", OutputStream.nullOutputStream()), OPTIONS);
    dedupeExporter.converge("t", Set.of("stdout"), versionA);
    await(dedupeExporter);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    stdoutExporter.close();
    fileExporter.close();
    dedupeExporter.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private List<Record> next() {
    flip = !flip;
    return flip ? versionB : versionA;
  }

  @Benchmark
  @OperationsPerInvocation(OBJECTS)
  public void changedSetToStdout() {
    stdoutExporter.converge("t", Set.of("stdout"), next());
    await(stdoutExporter);
  }

  @Benchmark
  @OperationsPerInvocation(OBJECTS)
  public void changedSetToFile() {
    fileExporter.converge("t", Set.of("file"), next());
    await(fileExporter);
  }

  @Benchmark
  @OperationsPerInvocation(OBJECTS)
  public void unchangedSetDedupe() {
    dedupeExporter.converge("t", Set.of("stdout"), versionA);
    await(dedupeExporter);
  }

  private static void await(Exporter exporter) {
    if (!exporter.awaitIdle(Duration.ofMinutes(1))) {
      throw new IllegalStateException("sink did not drain");
    }
  }

  /** Deployment-like records: a handful of scalar fields and labels, about 500 bytes of JSON. */
  static List<Record> records(String version) {
    GroupVersionKind gvk = new GroupVersionKind("apps", "v1", "Deployment");
    Instant at = Instant.parse("2026-01-01T00:00:00Z");
    List<Record> out = new ArrayList<>(OBJECTS);
    for (int i = 0; i < OBJECTS; i++) {
      Map<String, JsonNode> fields = new LinkedHashMap<>();
      fields.put("image", new TextNode("registry.example.com/team/app-" + i + ":" + version));
      fields.put("replicas", new IntNode(i % 5));
      fields.put("strategy", new TextNode("RollingUpdate"));
      fields.put("serviceAccount", new TextNode("app-" + i));
      out.add(new Record(Op.UPSERT, "prod-eu-1", "ns/inventory", "deployment-inventory", gvk,
          "ns-" + (i % 50), "app-" + i, "0b6f1e9c-7f1a-4c55-9d4e-" + String.format("%012d", i),
          String.valueOf(1000 + i), at, "sha256-" + version + "-" + i, fields,
          Map.of("app", "app-" + i, "team", "team-" + (i % 7)), Map.of()));
    }
    return out;
  }
}
