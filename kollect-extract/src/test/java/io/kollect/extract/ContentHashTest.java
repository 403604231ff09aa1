package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ContentHashTest {

  private static final String SHA256_OF_ABC =
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

  @Test
  void aSha256GivesBackTheSameHexText() throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256")
        .digest("abc".getBytes(StandardCharsets.US_ASCII));

    assertThat(ContentHash.ofSha256(digest).toString()).isEqualTo(SHA256_OF_ABC);
    assertThat(ContentHash.of(SHA256_OF_ABC).toString()).isEqualTo(SHA256_OF_ABC);
    assertThat(ContentHash.of(SHA256_OF_ABC)).isEqualTo(ContentHash.ofSha256(digest))
        .hasSameHashCodeAs(ContentHash.ofSha256(digest));
  }

  @Test
  void leadingZerosAndEveryHexDigitSurvive() {
    String text = "000000000000000f0123456789abcdef00000000000000000fedcba987654321";
    assertThat(ContentHash.of(text).toString()).isEqualTo(text);
    assertThat(HexFormat.of().parseHex(text)).hasSize(32);
  }

  @Test
  void otherTextIsKeptAsItIs() {
    for (String text : new String[] {"h1", "", SHA256_OF_ABC.toUpperCase(),
        SHA256_OF_ABC.substring(1), SHA256_OF_ABC + "0", "g" + SHA256_OF_ABC.substring(1)}) {
      assertThat(ContentHash.of(text).toString()).isEqualTo(text);
      assertThat(ContentHash.of(text)).isEqualTo(ContentHash.of(new String(text)));
    }
    assertThat(ContentHash.of(null)).isNull();
  }

  @Test
  void hashesAreEqualExactlyWhenTheirTextsAre() {
    String other = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae";
    assertThat(ContentHash.of(SHA256_OF_ABC)).isNotEqualTo(ContentHash.of(other));
    assertThat(ContentHash.of(SHA256_OF_ABC))
        .isNotEqualTo(ContentHash.of(SHA256_OF_ABC.toUpperCase()));
    assertThat(ContentHash.of("h1")).isNotEqualTo(ContentHash.of("h2"));
  }

  @Test
  void aRecordKeepsItsHashTextOnTheWire() {
    Record r = TestObjects.profile(CompiledProfileTest.DEPLOYMENTS)
        .extract(TestObjects.resource("deployment.yaml"), TestObjects.CTX).orElseThrow();

    assertThat(r.contentHash()).matches("[0-9a-f]{64}").isEqualTo(r.hash().toString());
    assertThat(Records.toJsonLine(r)).contains("\"contentHash\":\"" + r.contentHash() + "\"");
    assertThat(r.withSequence(3).hash()).isSameAs(r.hash());
    assertThat(Records.fromJson(Records.toJsonLine(r)).hash()).isEqualTo(r.hash());
  }
}
