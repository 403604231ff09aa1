package io.kollect.operator.cli;

import io.kollect.operator.http.InventoryAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Who may read {@code /inventory}: the {@code kollect run} flags that make its {@link InventoryAuth}. */
final class InventoryAuthOptions {

  @Option(names = "--inventory-token-file", paramLabel = "FILE",
      description = "Bearer token that /inventory requires (re-read on each request).")
  Path inventoryTokenFile;

  @Option(names = "--inventory-auth", paramLabel = "MODE", defaultValue = "bearer",
      description = "bearer (default: /inventory needs --inventory-token-file, else it is off) or none (no authentication).")
  String inventoryAuth;

  /** The authentication; a bad combination or an unreadable token file is bad input (exit 2). */
  InventoryAuth auth() {
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
