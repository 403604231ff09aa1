package io.kollect.operator.http;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * A listen address in the controller-tooling notation: {@code :8080} (all interfaces), {@code
 * 127.0.0.1:8080}, {@code [::1]:8080}, or {@code 0} to turn the listener off.
 *
 * @param address where to listen, empty when turned off
 */
public record BindAddress(Optional<InetSocketAddress> address) {

  private static final java.util.regex.Pattern FORM =
      java.util.regex.Pattern.compile("^(\\[[0-9a-fA-F:.]+]|[^:\\[\\]]*):([0-9]{1,5})$");

  /** Parses the notation; throws {@link IllegalArgumentException} naming the problem. */
  public static BindAddress parse(String text) {
    if (text.equals("0")) {
      return new BindAddress(Optional.empty());
    }
    Matcher m = FORM.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a listen address: use :PORT, HOST:PORT or 0 to turn it off");
    }
    int port = Integer.parseInt(m.group(2));
    if (port > 65535) {
      throw new IllegalArgumentException("'" + text + "': port " + port + " is above 65535");
    }
    String host = m.group(1);
    if (host.startsWith("[")) {
      host = host.substring(1, host.length() - 1);
    }
    return new BindAddress(Optional.of(host.isEmpty()
        ? new InetSocketAddress(port)
        : new InetSocketAddress(host, port)));
  }

  /** Listens on the loopback interface only, on the given port (0 picks a free one). */
  public static BindAddress loopback(int port) {
    return new BindAddress(Optional.of(new InetSocketAddress("127.0.0.1", port)));
  }

  /** No listener. */
  public static BindAddress off() {
    return new BindAddress(Optional.empty());
  }
}
