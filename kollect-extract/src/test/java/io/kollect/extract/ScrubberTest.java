package io.kollect.extract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import java.util.List;

class ScrubberTest {

  private final Scrubber scrubber = Scrubber.BUILT_IN;

  @ParameterizedTest
  @ValueSource(strings = {
      "password", "DB_PASSWORD", "dbPassword", "PGPASSWORD", "passwd", "pwd", "admin-pass", "passphrase",
      "secret", "clientSecret", "AWS_SECRET_ACCESS_KEY", "token", "authToken", "GITHUB_TOKEN",
      "api_key", "apiKey", "x-api-key", "APIKEY", "access_key", "accessKeyId", "private_key", "privateKey",
      "credential", "credentials", "creds", "auth", "Authorization", "cookie", "Set-Cookie", "bearer",
      "connectionString", "dsn", "session_id", "signing-key", "encryptionKey",
      // segment scrubbing: segments (camelCase, snake_case, kebab-case, dotted) and one-run keys by their ending
      "api-key", "client.secret", "GITHUBTOKEN", "MYSQL_ROOTPASSWORD", "password2", "db.password", "Db-Password"})
  void builtInSensitiveKeys(String key) {
    assertThat(scrubber.isSensitiveKey(key)).as(key).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "name", "image", "author", "authority", "passenger", "keys", "key", "secretName",
      "secretKeyRef", "secretRef", "imagePullSecrets", "passwordFile", "tokenPath", "automountServiceAccountToken",
      "serviceAccountName", "compass", "bypass", "monkey", "turkey",
      // segment scrubbing: a sensitive word inside a longer segment is not a match
      "tokenizedPayments", "tokenizerModel", "tokenizer_mode", "secretary", "passwordless-login", "oauth"})
  void keysThatAreNotSensitive(String key) {
    assertThat(scrubber.isSensitiveKey(key)).as(key).isFalse();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--password=hunter2|--password=********",
      "--db-password='two words'|--db-password='********'",
      "app --token abc123 --verbose|app --token ******** --verbose",
      "-p=1 --port=8080|-p=1 --port=8080",
      "DB_PASSWORD=hunter2 ./run.sh|DB_PASSWORD=******** ./run.sh",
      "Server=db;User Id=sa;Password=hunter2;|Server=db;User Id=sa;Password=********;",
      "{\"user\":\"a\",\"password\":\"hunter2\"}|{\"user\":\"a\",\"password\":\"********\"}",
      "postgres://user:hunter2@db:5432/x|postgres://user:********@db:5432/x",
      "https://example.com/a?b=c|https://example.com/a?b=c",
      "helm upgrade x --set auth.password=hunter2|helm upgrade x --set auth.password=********",
      "Authorization: Bearer abc.def|Authorization: ********",
      "redis://:hunter2@cache:6379|redis://:********@cache:6379",
      "sent eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzaG9wIn0.c2lnbmF0dXJl to x|sent ******** to x",
      "note: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzaG9wIn0.|note: ********"})
  void secretsInsideStringsAreMasked(String in, String out) {
    assertThat(scrubber.scrubString(in)).isEqualTo(out);
  }

  @Test
  void pemPrivateKeysAreMaskedWhereverTheyAppear() throws Exception {
    var kp = java.security.KeyPairGenerator.getInstance("EC").generateKeyPair();
    String body = java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(kp.getPrivate().getEncoded());
    String pem = "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
    JsonNode out = scrubber.scrub(TestObjects.yaml("{config: {tlsMaterial: " + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
        "# key\n" + pem + "# end") + ", rsa: \"-----BEGIN RSA PRIVATE KEY-----\\nMIIEabc\"}}"));
    assertThat(out.path("config").path("tlsMaterial").textValue()).isEqualTo("# key\n********\n# end");
    assertThat(out.path("config").path("rsa").textValue()).isEqualTo("********");
    String cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    assertThat(scrubber.scrubString(cert)).isSameAs(cert);
  }

  @Test
  void yamlDocumentsInStringsHaveSensitiveLinesMasked() {
    String cfg = "db:\n  host: db.shop\n  password: hunter2\n  user: shop\n";
    assertThat(scrubber.scrubString(cfg)).isEqualTo("db:\n  host: db.shop\n  password: ********\n  user: shop\n");
  }

  @Test
  void namesInNameValuePairsAndFlagsInArgumentListsSelectWhatIsMasked() {
    JsonNode in = TestObjects.yaml("""
        env:
        - {name: API_TOKEN, value: t0k}
        - {name: LOG_LEVEL, value: info}
        - {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}
        set:
        - {name: auth.rootPassword, value: r00t}
        args: ["--password", "p4ss", "--port", "80", "--token"]
        """);
    JsonNode out = scrubber.scrub(in);
    assertThat(out.toString()).isEqualTo(
        "{\"env\":[{\"name\":\"API_TOKEN\",\"value\":\"********\"},{\"name\":\"LOG_LEVEL\",\"value\":\"info\"},"
            + "{\"name\":\"DB_PASSWORD\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"db\",\"key\":\"password\"}}}],"
            + "\"set\":[{\"name\":\"auth.rootPassword\",\"value\":\"********\"}],"
            + "\"args\":[\"--password\",\"********\",\"--port\",\"80\",\"--token\"]}");
  }

  @Test
  void wholeSubtreesUnderSensitiveKeysAreMaskedAndNullsKept() {
    JsonNode out = scrubber.scrub(TestObjects.yaml("{credentials: {aws: {id: a, value: b}}, token: null, n: 1}"));
    assertThat(out.toString()).isEqualTo("{\"credentials\":\"********\",\"token\":null,\"n\":1}");
  }

  @Test
  void profileGlobsAddToTheBuiltInList() {
    Scrubber s = new Scrubber(List.of("*.internal", "license?"));
    assertThat(s.isSensitiveKey("db.internal")).isTrue();
    assertThat(s.isSensitiveKey("LICENSE1")).isTrue();
    assertThat(s.isSensitiveKey("license")).isFalse();
    assertThat(s.isSensitiveKey("password")).isTrue();
  }
}
