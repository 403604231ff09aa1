#!/usr/bin/env bash
# End-to-end tests of what ships: builds the packaged operator (kollect-operator/target/kollect.jar)
# and everything it needs, then runs only the *E2EIT tests of kollect-samples-it, which start that
# jar as a separate process against a real kube-apiserver, authenticated with the shipped RBAC.
# Provisions the API server binaries first when they are missing (idempotent).
# Extra arguments go to Maven (e.g. -o for offline).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
# -am builds the operator (and its shaded jar) in the same reactor; unit tests and the other ITs
# run in scripts/test.sh, so skip them here: -Dtest=none with failIfNoSpecifiedTests off.
./mvnw -B -ntp -pl kollect-samples-it -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test='*E2EIT' -Dfailsafe.failIfNoSpecifiedTests=false \
  "$@"
