package io.kollect.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.IntNode;
import io.kollect.extract.FieldRule;
import io.kollect.extract.ProfileSpec;
import io.kollect.extract.ResourceRule;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProfileRevisionTest {

  @Test
  void theNameIsTheProfileAndTenHexOfTheCanonicalSpecsMd5() {
    ProfileRevision r = ProfileRevision.of("deployments", Specs.BASELINE);

    assertThat(r.specHash()).matches("[0-9a-f]{32}");
    assertThat(r.name()).isEqualTo("deployments-" + r.specHash().substring(0, 10));
  }

  @Test
  void specsThatMeanTheSameHaveOneRevision() {
    // "" and null group, empty and null lists: the defaulted spec is the same.
    ProfileSpec a = new ProfileSpec(List.of(new ResourceRule(null, "v1", "Service",
        List.of(new FieldRule("port", ".spec.ports[0].port", null, null, null)), null, null,
        null, false, false)));
    ProfileSpec b = new ProfileSpec(List.of(new ResourceRule("", "v1", "Service",
        List.of(FieldRule.of("port", ".spec.ports[0].port")), List.of(), List.of(), List.of(),
        false, false)));

    assertThat(ProfileRevision.of("p", a).name()).isEqualTo(ProfileRevision.of("p", b).name());
    assertThat(ProfileRevision.canonicalJson(a)).doesNotContain("null");
  }

  @Test
  void canonicalJsonHasSortedKeysAndReadsBackToTheSameSpec() {
    ProfileSpec spec = new ProfileSpec(List.of(new ResourceRule("apps", "v1", "Deployment",
        List.of(new FieldRule("replicas", ".spec.replicas", IntNode.valueOf(1), null, false)),
        List.of("app*"), List.of(), List.of("token"), false, false)));

    String json = ProfileRevision.canonicalJson(spec);

    assertThat(json.indexOf("\"annotations\"")).isLessThan(json.indexOf("\"fields\""));
    assertThat(json.indexOf("\"default\"")).isLessThan(json.indexOf("\"list\""));
    assertThat(ProfileRevision.parseCanonical(json)).isEqualTo(spec);
  }

  @Test
  void differentSpecsHaveDifferentRevisions() {
    assertThat(ProfileRevision.of("p", Specs.BASELINE).name())
        .isNotEqualTo(ProfileRevision.of("p", Specs.CANDIDATE).name());
  }

  @Test
  void aLongProfileNameIsShortenedToAValidLabelValueWithoutCollisions() {
    String longName = "a".repeat(200) + ".example.com";
    String other = "a".repeat(200) + ".example.org";

    String label = ProfileRevision.profileLabel(longName);
    ProfileRevision r = ProfileRevision.of(longName, Specs.BASELINE);

    assertThat(label).hasSizeLessThanOrEqualTo(ProfileRevision.MAX_PROFILE_PART)
        .matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    assertThat(r.name()).hasSizeLessThanOrEqualTo(63)
        .matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    assertThat(ProfileRevision.profileLabel(other)).isNotEqualTo(label);
  }

  @Test
  void aPrefixEndingInADotOrDashIsTrimmedSoTheLabelStaysValid() {
    String name = "x".repeat(40) + "-.-" + "y".repeat(100);

    assertThat(ProfileRevision.profileLabel(name)).matches("x{40}-[0-9a-f]{10}");
  }

  @Test
  void aShortNameIsKeptAsItIs() {
    String name = "p".repeat(ProfileRevision.MAX_PROFILE_PART);

    assertThat(ProfileRevision.profileLabel(name)).isEqualTo(name);
  }
}
