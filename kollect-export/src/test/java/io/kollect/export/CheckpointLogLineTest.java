package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class CheckpointLogLineTest {

  private static String expected(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return String.format("%08x", crc.getValue()) + " " + json + "\n";
  }

  private static String text(ByteBuffer line) {
    return new String(line.array(), line.position(), line.remaining(), StandardCharsets.UTF_8);
  }

  @Test
  void isTheChecksumOfTheJsonASpaceTheJsonAndANewline() {
    String json = "{\"version\":3,\"generation\":7,\"upserts\":{\"k\":{\"name\":\"\u00e9\"}},"
        + "\"removed\":[]}";
    CheckpointLogLine line = new CheckpointLogLine(4);
    line.writeBytes(json.getBytes(StandardCharsets.UTF_8));
    assertThat(line.jsonLength()).isEqualTo(json.getBytes(StandardCharsets.UTF_8).length);
    assertThat(text(line.finish())).isEqualTo(expected(json));
    assertThat(line.jsonLength()).isEqualTo(json.getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void aChecksumWithLeadingZeroDigitsKeepsThemAndAnEmptyJsonStillMakesALine() {
    // CRC-32C of the empty input is 0: all eight digits are zeros
    assertThat(text(new CheckpointLogLine(0).finish())).isEqualTo("00000000 \n");
    for (int i = 0; i < 2000; i++) {
      String json = "{\"n\":" + i + "}";
      CheckpointLogLine line = new CheckpointLogLine(json.length());
      line.writeBytes(json.getBytes(StandardCharsets.UTF_8));
      assertThat(text(line.finish())).isEqualTo(expected(json));
    }
  }

  @Test
  void finishingTwiceGivesTheSameLineAndNothingIsWrittenAfterIt() {
    CheckpointLogLine line = new CheckpointLogLine(16);
    line.writeBytes("{}".getBytes(StandardCharsets.UTF_8));
    String first = text(line.finish());
    assertThat(text(line.finish())).isEqualTo(first).isEqualTo(expected("{}"));
    assertThatThrownBy(() -> line.write('x')).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> line.write(new byte[] {1}, 0, 1))
        .isInstanceOf(IllegalStateException.class);
  }
}
