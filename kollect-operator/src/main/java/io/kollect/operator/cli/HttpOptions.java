package io.kollect.operator.cli;

import io.kollect.operator.http.BindAddress;
import io.kollect.operator.http.HttpSettings;
import io.kollect.operator.http.InventoryAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The HTTP flags of {@code kollect run}, listeners and who may read {@code /inventory}: they make its {@link HttpSettings}. */
final class HttpOptions {

  @Option(names = "--metrics-bind-address", paramLabel = "ADDR", defaultValue = ":8080",
      converter = Converters.Address.class,
      description = "Serve /metrics and /inventory here; 0 turns it off (default: ${DEFAULT-VALUE}).")
  BindAddress metricsAddress;

  @Option(names = "--health-probe-bind-address", paramLabel = "ADDR", defaultValue = ":8081",
      converter = Converters.Address.class,
      description = "Serve /healthz and /readyz here; 0 turns it off (default: ${DEFAULT-VALUE}).")
  BindAddress probeAddress;

  @Option(names = "--inventory-token-file", paramLabel = "FILE",
      description = "Bearer token that /inventory requires (re-read on each request).")
  Path inventoryTokenFile;

  @Option(names = "--inventory-auth", paramLabel = "MODE", defaultValue = "bearer",
      description = "bearer (default: /inventory needs --inventory-token-file, else it is off) or none (no authentication).")
  String inventoryAuth;

  /** The settings; a bad combination or an unreadable token file is bad input (exit 2). */
  HttpSettings settings() {
    return new HttpSettings(metricsAddress, probeAddress, auth());
  }

  private InventoryAuth auth() {
    switch (inventoryAuth) {
      case "none":
        if (inventoryTokenFile != null) {
          throw new BadInputException(
              "--inventory-token-file cannot be combined with --inventory-auth=none");
        }
        return InventoryAuth.none();
      case "bearer":
        if (inventoryTokenFile == null) {
          return InventoryAuth.disabled();
        }
        if (!Files.isReadable(inventoryTokenFile)) {
          throw new BadInputException("--inventory-token-file: " + inventoryTokenFile
              + " is not readable");
        }
        return InventoryAuth.tokenFile(inventoryTokenFile);
      default:
        throw new BadInputException("--inventory-auth: '" + inventoryAuth
            + "' is not one of bearer, none");
    }
  }
}
