package io.kollect.core.lifecycle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kollect.extract.ProfileSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * One spec a profile had, named by its content: {@code {profile}-{first 10 hex of md5 of the
 * canonical spec}}. The canonical spec is the defaulted spec (as {@link ProfileSpec} holds it) as
 * JSON with sorted keys and no nulls, so two specs that mean the same have one name whatever their
 * YAML looked like.
 *
 * <p>The profile part of the name is the profile's {@link #profileLabel label}: the name itself
 * when it is at most {@value #MAX_PROFILE_PART} characters, else a prefix with a digest of the
 * whole name, so that the revision name is a valid object name and label value (at most 63
 * characters) for any valid profile name, and two long names with one prefix do not collide.
 *
 * @param profile the profile's name
 * @param name the revision's name
 * @param specHash md5 of the canonical spec, lowercase hex (32 characters)
 * @param spec the spec
 */
public record ProfileRevision(String profile, String name, String specHash, ProfileSpec spec) {

  /** Longest profile part of a revision name: 52 + "-" + 10 hex = 63. */
  public static final int MAX_PROFILE_PART = 52;
  /** Hex digits of the spec hash in a revision name. */
  public static final int NAME_HASH_LENGTH = 10;

  private static final ObjectMapper JSON = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public ProfileRevision {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(specHash, "specHash");
    Objects.requireNonNull(spec, "spec");
  }

  /** The revision of {@code spec} as the spec of {@code profile}. */
  public static ProfileRevision of(String profile, ProfileSpec spec) {
    String hash = specHash(spec);
    return new ProfileRevision(profile, name(profile, hash), hash, spec);
  }

  /** The revision name of a profile and spec hash. */
  public static String name(String profile, String specHash) {
    return profileLabel(profile) + "-" + specHash.substring(0, NAME_HASH_LENGTH);
  }

  /**
   * The profile's name as a label value: itself when short enough, else its first characters
   * (ending in a letter or digit) and 10 hex of the md5 of the whole name.
   */
  public static String profileLabel(String profile) {
    if (profile.length() <= MAX_PROFILE_PART) {
      return profile;
    }
    String digest = md5(profile).substring(0, NAME_HASH_LENGTH);
    String prefix = profile.substring(0, MAX_PROFILE_PART - NAME_HASH_LENGTH - 1);
    // A label value must start and end with an alphanumeric character.
    prefix = prefix.replaceAll("[^a-zA-Z0-9]+$", "");
    return prefix + "-" + digest;
  }

  /** md5 of the canonical JSON of {@code spec}, lowercase hex. */
  public static String specHash(ProfileSpec spec) {
    return md5(canonicalJson(spec));
  }

  /** The defaulted spec as JSON with sorted keys and no nulls. */
  public static String canonicalJson(ProfileSpec spec) {
    JsonNode tree = canonical(JSON.valueToTree(spec));
    try {
      return JSON.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a profile spec as JSON", e);
    }
  }

  /** The spec of canonical JSON as {@link #canonicalJson} wrote it (a stored revision). */
  public static ProfileSpec parseCanonical(String json) {
    try {
      return JSON.readValue(json, ProfileSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("stored revision: not a profile spec: "
          + e.getOriginalMessage(), e);
    }
  }

  private static JsonNode canonical(JsonNode node) {
    if (node.isObject()) {
      ObjectNode sorted = JSON.createObjectNode();
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      for (String n : names) {
        JsonNode v = node.get(n);
        if (!v.isNull()) {
          sorted.set(n, canonical(v));
        }
      }
      return sorted;
    }
    if (node.isArray()) {
      var array = JSON.createArrayNode();
      node.forEach(v -> array.add(canonical(v)));
      return array;
    }
    return node;
  }

  private static String md5(String text) {
    try {
      // md5 names content here (as Datadog's and Kubernetes' revision hashes do); not security.
      MessageDigest md = MessageDigest.getInstance("MD5");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no MD5", e);
    }
  }
}
