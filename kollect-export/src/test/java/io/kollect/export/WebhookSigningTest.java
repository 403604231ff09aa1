package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;
import org.junit.jupiter.api.Test;

/** Standard Webhooks signatures: the algorithm, the keys and their validation. */
class WebhookSigningTest {

  static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);

  @Test
  void signatureMatchesTheExampleOfTheStandardWebhooksReferenceLibraries() {
    // the example the specification's reference libraries test their signing with
    List<byte[]> keys = WebhookSigning.keys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").read();
    assertThat(WebhookSigning.signatures(keys, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330L, BODY))
        .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }

  @Test
  void signatureIsTheBase64OfAnHmacSha256OverIdTimestampAndBody() {
    byte[] key = "a key of some length".getBytes(StandardCharsets.UTF_8);
    byte[] body = "[{\"op\":\"UPSERT\"}]".getBytes(StandardCharsets.UTF_8);
    // computed independently, with Bouncy Castle's HMAC
    HMac hmac = new HMac(new SHA256Digest());
    hmac.init(new KeyParameter(key));
    byte[] content = ("id-1.1700000000." + new String(body, StandardCharsets.UTF_8))
        .getBytes(StandardCharsets.UTF_8);
    hmac.update(content, 0, content.length);
    byte[] expected = new byte[hmac.getMacSize()];
    hmac.doFinal(expected, 0);

    String whsec = "whsec_" + Base64.getEncoder().encodeToString(key);
    assertThat(WebhookSigning.signatures(WebhookSigning.keys(whsec).read(), "id-1", 1700000000L,
        body)).isEqualTo("v1," + Base64.getEncoder().encodeToString(expected));
  }

  @Test
  void duringARotationEveryKeySignsAndTheSignaturesAreSpaceSeparatedInOrder() {
    String a = "whsec_" + Base64.getEncoder().encodeToString(new byte[] {1, 2, 3});
    String b = "whsec_" + Base64.getEncoder().encodeToString(new byte[] {4, 5, 6});
    String both = WebhookSigning.signatures(WebhookSigning.keys(a, b).read(), "i", 1L, BODY);
    assertThat(both).isEqualTo(
        WebhookSigning.signatures(WebhookSigning.keys(a).read(), "i", 1L, BODY) + " "
            + WebhookSigning.signatures(WebhookSigning.keys(b).read(), "i", 1L, BODY));
  }

  @Test
  void aBadKeyIsRefusedWhenTheConfigurationIsBuiltNamingTheFieldButNeverTheValue() {
    String secretish = "not-a-key-Zm9vYmFy";
    assertThatThrownBy(() -> WebhookSigning.keys(secretish))
        .hasMessage("signingKeys: key 1 of 1 does not start with 'whsec_' (the Standard Webhooks "
            + "form is whsec_<base64 of the key>)");
    assertThatThrownBy(() -> WebhookSigning.keys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "whsec_%%%secret%%%"))
        .hasMessage("signingKeys: key 2 of 2 is not base64 after 'whsec_'")
        .message().doesNotContain("secret");
    assertThatThrownBy(() -> WebhookSigning.keys("whsec_"))
        .hasMessage("signingKeys: key 1 of 1 is empty after 'whsec_'");
    assertThatThrownBy(() -> WebhookSigning.keys(() -> List.of()))
        .hasMessage("signingKeys: at least one key is required");
    assertThatThrownBy(() -> WebhookSigning.keys(() -> {
      throw new IllegalStateException("Secret ns/hook has no key 'whsec_abc'");
    })).hasMessage("signingKeys: cannot be read (IllegalStateException)");
    assertThat(WebhookSigning.keys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").toString())
        .doesNotContain("MfKQ");
  }

  @Test
  void aKeyRotatedToABadValueIsARetryableFailureNamingTheFieldButNeverTheValue() {
    String good = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    AtomicReference<List<String>> current = new AtomicReference<>(List.of(good));
    // nothing listens on port 9: the signing fails before any connection is tried
    HttpSink sink = new HttpSink("signed", HttpSinkConfig.of(URI.create("http://127.0.0.1:9/"))
        .withSigning(WebhookSigning.keys(current::get)),
        Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    current.set(List.of(good, "whsec-typo-s3cr3t"));
    assertThatThrownBy(() -> sink.write(List.of(TestRecords.record("t", "a", 1))))
        .isInstanceOfSatisfying(SinkException.class, e -> {
          assertThat(e.retryable()).isTrue();
          assertThat(e.getMessage()).contains("signingKeys: key 2 of 2 does not start with")
              .doesNotContain("s3cr3t");
        });
  }

  @Test
  void signingIsRefusedWithGzipAndWithWebhookHeadersOfItsOwn() {
    HttpSinkConfig base = HttpSinkConfig.of(URI.create("http://localhost:8080/hook"));
    WebhookSigning signing = WebhookSigning.keys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    assertThatThrownBy(() -> base.withGzip(true).withSigning(signing))
        .hasMessageStartingWith("signing, gzip:");
    assertThatThrownBy(() -> base.withHeaders(java.util.Map.of("Webhook-Id", "x"))
        .withSigning(signing)).hasMessage("headers: 'Webhook-Id' is set by the sink when signing");
    assertThat(base.withSigning(signing).toString()).contains("signing=standard-webhooks")
        .doesNotContain("MfKQ");
  }
}
