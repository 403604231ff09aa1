package io.kollect.operator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BindAddressTest {

  @Test
  void portOnlyListensOnAllInterfaces() {
    var a = BindAddress.parse(":8080").address().orElseThrow();
    assertThat(a.getPort()).isEqualTo(8080);
    assertThat(a.getAddress().isAnyLocalAddress()).isTrue();
  }

  @Test
  void hostAndPortAndIpv6() {
    assertThat(BindAddress.parse("127.0.0.1:9090").address().orElseThrow().getAddress().isLoopbackAddress()).isTrue();
    assertThat(BindAddress.parse("[::1]:9090").address().orElseThrow().getPort()).isEqualTo(9090);
  }

  @Test
  void zeroTurnsTheListenerOff() {
    assertThat(BindAddress.parse("0").address()).isEmpty();
  }

  @Test
  void malformedAddressesNameTheProblem() {
    assertThatThrownBy(() -> BindAddress.parse("8080")).hasMessageContaining("'8080' is not a listen address");
    assertThatThrownBy(() -> BindAddress.parse(":99999")).hasMessageContaining("above 65535");
    assertThatThrownBy(() -> BindAddress.parse("host:")).hasMessageContaining("not a listen address");
  }
}
