package io.kollect.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each sample's page under docs/examples shows the sample as it is, not as it once was. */
class ExamplePagesTest {
  private static final Pattern JSON_BLOCK = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL);

  static Stream<Sample> samples() {
    return Sample.all().stream();
  }

  static Path page(Sample sample) {
    return SamplePaths.repoRoot().resolve("docs/examples").resolve(sample.name() + ".md");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void pageQuotesTheProfileAndTargetVerbatim(Sample sample) throws IOException {
    String page = Files.readString(page(sample));
    assertThat(page).contains(Files.readString(sample.dir().resolve("profile.yaml")));
    assertThat(page).contains(Files.readString(sample.dir().resolve("target.yaml")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void pageGoldenExcerptIsARecordOfTheGoldenFile(Sample sample) throws IOException {
    Matcher m = JSON_BLOCK.matcher(Files.readString(page(sample)));
    assertThat(m.find()).as("%s has a ```json golden excerpt", page(sample)).isTrue();
    JsonNode excerpt = Sample.JSON.readTree(m.group(1));
    assertThat(sample.expected())
        .as("golden records of %s", sample.name())
        .anySatisfy(golden -> assertThat(golden).isEqualTo(excerpt));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void pageIsListedInTheExamplesIndex(Sample sample) throws IOException {
    String index = Files.readString(SamplePaths.repoRoot().resolve("docs/examples/README.md"));
    assertThat(index).contains("(" + sample.name() + ".md)");
  }
}
