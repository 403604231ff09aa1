package io.kollect.extract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces values under sensitive keys with {@value #MASK}. A key is split into <em>segments</em>
 * at camelCase, letter/digit boundaries and every character that is not a letter or digit ({@code
 * _ - . /}, spaces); it is sensitive when a segment is one of {@link #SENSITIVE_WORDS}, two adjacent
 * segments form one of {@link #SENSITIVE_PAIRS}, a segment that is one run of letters ends with one
 * of {@link #SENSITIVE_SUFFIXES} ({@code PGPASSWORD}, {@code GITHUBTOKEN}), or it matches one of the
 * profile's {@code scrubKeys} globs; {@link #REFERENCE_KEYS} and keys whose last segment names a
 * reference ({@code secretName}, {@code passwordFile}) are not. Segments, not substrings: {@code
 * tokenizedPayments} and {@code tokenizerModel} are kept. Keep docs/profile-reference.md in step.
 *
 * <p>Besides keys, it scrubs name/value pairs by name ({@code env}, Helm {@code set}), the argument
 * after a sensitive flag in string lists ({@code ["--token", "x"]}), and inside any string: {@code
 * --password=x}, {@code --token x}, {@code password=x}, {@code "password": "x"}, {@code password:
 * x} lines, and well-known secret shapes whatever key they are under: PEM private key blocks, JSON
 * Web Tokens, and the password of URL user info ({@code https://user:x@host}).
 */
final class Scrubber {

  static final String MASK = "********";
  private static final TextNode MASK_NODE = TextNode.valueOf(MASK);

  static final Set<String> SENSITIVE_WORDS =
      Set.of(
          "password", "passwords", "passwd", "pwd", "pass", "passphrase", "secret", "secrets",
          "token", "tokens", "apikey", "apikeys", "accesskey", "privatekey", "secretkey",
          "credential", "credentials", "creds", "auth", "authorization", "cookie", "cookies",
          "bearer", "sessionid", "connectionstring", "dsn");

  static final Set<String> SENSITIVE_PAIRS =
      Set.of(
          "api key", "access key", "private key", "signing key", "encryption key", "session id",
          "connection string", "client key", "master key");

  /**
   * Words that also make a key sensitive at the end of a segment that is one run of letters
   * ({@code PGPASSWORD}, {@code GITHUBTOKEN}, {@code rootpassword}); the short, ambiguous words
   * ({@code pwd}, {@code auth}, {@code pass}: {@code compass}, {@code oauth}) only count whole.
   */
  static final List<String> SENSITIVE_SUFFIXES =
      List.of("password", "passwords", "passwd", "passphrase", "secret", "secrets", "token", "tokens",
          "apikey", "accesskey", "privatekey", "secretkey", "credential", "credentials");

  /** Kubernetes keys whose values are references to secrets, never secrets themselves. */
  static final Set<String> REFERENCE_KEYS =
      Set.of(
          "imagePullSecrets", "automountServiceAccountToken", "serviceAccountToken",
          "secretKeyRef", "secretRef", "secretName", "secretNamespace");

  /** A last word that makes a key name a reference (secretName, passwordFile, tokenPath). */
  static final Set<String> REFERENCE_LAST_WORDS = Set.of("name", "ref", "file", "path", "namespace");

  private static final String[] PRECHECK = {
    "pass", "pwd", "secret", "token", "key", "cred", "auth", "cookie", "bearer", "session",
    "connection", "dsn", "private key", "eyj"
  };

  private static final Pattern FLAG_ASSIGN =
      Pattern.compile("(?<![\\w-])(--?)([A-Za-z0-9_.-]+)=(\"[^\"]*\"|'[^']*'|[^\\s\"']+)");
  private static final Pattern FLAG_SPACE =
      Pattern.compile("(?<![\\w-])(--?)([A-Za-z0-9_.-]+)\\s+(\"[^\"]*\"|'[^']*'|[^\\s\"'-][^\\s\"']*)");
  private static final Pattern KEY_ASSIGN =
      Pattern.compile("(?<![\\w.-])([A-Za-z_][A-Za-z0-9_.-]*)=([^\\s;&,\"']+|\"[^\"]*\"|'[^']*')");
  private static final Pattern JSON_PAIR =
      Pattern.compile("\"([^\"\\\\]{1,200})\"\\s*:\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|[^\\s,}\\]]+)");
  private static final Pattern YAML_LINE =
      Pattern.compile("(?m)^(\\s*-?\\s*[\"']?)([A-Za-z_][A-Za-z0-9_.-]*)([\"']?\\s*:[ \\t]+)(\\S[^\\r\\n]*)$");
  private static final Pattern URL_USERINFO =
      Pattern.compile("(://[^:/@\\s]*:)([^@/\\s]+)(@)");
  /** A PEM private key block (PKCS#1, PKCS#8, EC, OpenSSH, PGP); an unterminated one to the end. */
  private static final Pattern PEM_PRIVATE_KEY =
      Pattern.compile("-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----[\\s\\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----|\\z)");
  /** A JSON Web Token: base64url header and payload that both start as a JSON object. */
  private static final Pattern JWT =
      Pattern.compile("(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\\.eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*");
  private static final Pattern FLAG_ONLY = Pattern.compile("--?([A-Za-z0-9_.-]+)");
  private static final Pattern WORD_BOUNDARY =
      Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])|[^A-Za-z0-9]+");

  private static final int MEMO_LIMIT = 8192;
  private static final Map<String, Boolean> BUILT_IN_MEMO = new ConcurrentHashMap<>();

  static final Scrubber BUILT_IN = new Scrubber(List.of());

  private final List<Pattern> extraGlobs;

  Scrubber(List<String> scrubKeyGlobs) {
    List<Pattern> globs = new ArrayList<>();
    for (String g : scrubKeyGlobs) {
      globs.add(Globs.compile(g));
    }
    this.extraGlobs = List.copyOf(globs);
  }

  boolean isSensitiveKey(String key) {
    for (Pattern p : extraGlobs) {
      if (p.matcher(key).matches()) {
        return true;
      }
    }
    return isBuiltInSensitive(key);
  }

  static boolean isBuiltInSensitive(String key) {
    Boolean known = BUILT_IN_MEMO.get(key);
    if (known != null) {
      return known;
    }
    boolean sensitive = classify(key);
    // A memo of a pure function over a small vocabulary (Kubernetes field names); the bound only
    // stops pathological inputs (random ConfigMap keys) from growing it without limit.
    if (BUILT_IN_MEMO.size() < MEMO_LIMIT) {
      BUILT_IN_MEMO.put(key, sensitive);
    }
    return sensitive;
  }

  private static boolean classify(String key) {
    if (REFERENCE_KEYS.contains(key)) {
      return false;
    }
    String[] raw = WORD_BOUNDARY.split(key);
    List<String> words = new ArrayList<>(raw.length);
    for (String w : raw) {
      if (!w.isEmpty()) {
        words.add(w.toLowerCase(Locale.ROOT));
      }
    }
    if (words.isEmpty()) {
      return false;
    }
    if (words.size() > 1 && REFERENCE_LAST_WORDS.contains(words.get(words.size() - 1))) {
      return false;
    }
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i);
      if (SENSITIVE_WORDS.contains(w) || endsWithSensitiveWord(w)) {
        return true;
      }
      if (i + 1 < words.size() && SENSITIVE_PAIRS.contains(words.get(i) + " " + words.get(i + 1))) {
        return true;
      }
    }
    return false;
  }

  private static boolean endsWithSensitiveWord(String segment) {
    for (String suffix : SENSITIVE_SUFFIXES) {
      if (segment.length() > suffix.length() && segment.endsWith(suffix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The node with everything sensitive masked. Copy-on-write: unchanged subtrees are returned as
   * they are (most of an object has nothing to mask, and copying it would dominate extraction);
   * the input is never modified.
   */
  JsonNode scrub(JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isObject()) {
      return scrubObject(node);
    }
    if (node.isArray()) {
      return scrubArray(node);
    }
    if (node.isTextual()) {
      String s = node.textValue();
      String scrubbed = scrubString(s);
      return scrubbed == s ? node : TextNode.valueOf(scrubbed);
    }
    return node;
  }

  private JsonNode scrubObject(JsonNode node) {
    ObjectNode copy = null;
    boolean sensitivePair = isSensitivePair(node);
    int index = 0;
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      JsonNode v = e.getValue();
      JsonNode out;
      if (v.isNull()) {
        out = v;
      } else if (isSensitiveKey(k) || (sensitivePair && k.equals("value"))) {
        out = MASK_NODE;
      } else {
        out = scrub(v);
      }
      if (copy == null && out != v) {
        copy = JsonNodeFactory.instance.objectNode();
        Iterator<Map.Entry<String, JsonNode>> before = node.fields();
        for (int i = 0; i < index; i++) {
          Map.Entry<String, JsonNode> b = before.next();
          copy.set(b.getKey(), b.getValue());
        }
      }
      if (copy != null) {
        copy.set(k, out);
      }
      index++;
    }
    return copy == null ? node : copy;
  }

  /** Whether {@code node.value} must be masked because the node names a secret. */
  boolean masksValueOf(JsonNode node) {
    return node.isObject() && isSensitivePair(node);
  }

  /** {name: DB_PASSWORD, value: x} (env, Helm set) or {key: password, value: x}. */
  private boolean isSensitivePair(JsonNode node) {
    if (!node.has("value")) {
      return false;
    }
    JsonNode name = node.get("name");
    if (name == null || !name.isTextual()) {
      name = node.get("key");
    }
    return name != null && name.isTextual() && isSensitiveKey(name.textValue());
  }

  private JsonNode scrubArray(JsonNode node) {
    ArrayNode copy = null;
    boolean maskNext = false;
    for (int i = 0; i < node.size(); i++) {
      JsonNode e = node.get(i);
      JsonNode out;
      if (maskNext && e.isTextual()) {
        out = MASK_NODE;
        maskNext = false;
      } else {
        maskNext = false;
        if (e.isTextual() && e.textValue().startsWith("-")) {
          Matcher flag = FLAG_ONLY.matcher(e.textValue());
          if (flag.matches() && isSensitiveKey(flag.group(1))) {
            maskNext = true;
          }
        }
        out = scrub(e);
      }
      if (copy == null && out != e) {
        copy = JsonNodeFactory.instance.arrayNode(node.size());
        for (int j = 0; j < i; j++) {
          copy.add(node.get(j));
        }
      }
      if (copy != null) {
        copy.add(out);
      }
    }
    return copy == null ? node : copy;
  }

  /** The string with embedded secrets masked; the same instance when nothing was masked. */
  String scrubString(String s) {
    if (!mayContainSecret(s)) {
      return s;
    }
    // Each pattern needs a character the others do not; checking for it first keeps the regex
    // engine away from strings that cannot match (most flagged strings match none).
    String r = s;
    if (r.indexOf('=') >= 0) {
      r = replaceSensitive(FLAG_ASSIGN, r, 2, 3);
      r = replaceSensitive(KEY_ASSIGN, r, 1, 2);
    }
    if (r.indexOf('-') >= 0 && hasWhitespace(r)) {
      r = replaceSensitive(FLAG_SPACE, r, 2, 3);
    }
    if (r.indexOf('"') >= 0) {
      r = replaceSensitive(JSON_PAIR, r, 1, 2);
    }
    if (r.indexOf(':') >= 0) {
      r = replaceSensitive(YAML_LINE, r, 2, 4);
    }
    if (r.contains("PRIVATE KEY")) {
      r = PEM_PRIVATE_KEY.matcher(r).replaceAll(MASK);
    }
    if (r.contains("eyJ")) {
      r = JWT.matcher(r).replaceAll(MASK);
    }
    if (r.contains("://") && r.indexOf('@') >= 0) {
      Matcher m = URL_USERINFO.matcher(r);
      if (m.find()) {
        r = m.replaceAll("$1" + MASK + "$3");
      }
    }
    return r.equals(s) ? s : r;
  }

  private static boolean hasWhitespace(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private boolean mayContainSecret(String s) {
    if (s.length() < 3) {
      return false;
    }
    if (s.indexOf('@') >= 0 && s.contains("://")) {
      return true;
    }
    if (!extraGlobs.isEmpty()) {
      return true;
    }
    // Runs for every string of every object: one lower-casing and a few intrinsic indexOf scans
    // keep the regexes off the common path (images, names, quantities).
    String lower = s.toLowerCase(Locale.ROOT);
    for (String p : PRECHECK) {
      if (lower.contains(p)) {
        return true;
      }
    }
    return false;
  }

  private String replaceSensitive(Pattern p, String s, int keyGroup, int valueGroup) {
    Matcher m = p.matcher(s);
    StringBuilder sb = null;
    int last = 0;
    while (m.find()) {
      if (m.group(valueGroup).equals(MASK) || !isSensitiveKey(stripQuotes(m.group(keyGroup)))) {
        continue;
      }
      if (sb == null) {
        sb = new StringBuilder(s.length());
      }
      int from = m.start(valueGroup);
      int to = m.end(valueGroup);
      String v = m.group(valueGroup);
      if (v.length() >= 2 && (v.charAt(0) == '"' || v.charAt(0) == '\'') && v.charAt(v.length() - 1) == v.charAt(0)) {
        from++; // keep the quotes so JSON and shell syntax stay intact
        to--;
      }
      sb.append(s, last, from).append(MASK);
      last = to;
    }
    if (sb == null) {
      return s;
    }
    return sb.append(s, last, s.length()).toString();
  }

  private static String stripQuotes(String s) {
    return s.replace("\"", "").replace("'", "");
  }
}
