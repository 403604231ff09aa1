#!/usr/bin/env bash
# Runs every test: unit tests (Surefire) and integration tests on a real kube-apiserver (Failsafe).
# Provisions the API server binaries and the PostgreSQL 15 server (the postgres sink's tests) first
# when they are missing (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
# kollect-testing's TestPostgresServer runs Debian's postgresql-15 binaries from here
if [[ ! -x /usr/lib/postgresql/15/bin/postgres ]]; then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "[test] installing postgresql-15 (the postgres sink's tests run a real server)" >&2
  $SUDO apt-get update -qq
  # the package's own cluster is not used (tests run initdb in a temporary directory): do not
  # let the package create and start one, unless the machine already says otherwise
  if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
    $SUDO mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    postgresql-15
fi
# The committed deploy/crds must match what the CRD classes generate (GeneratedCrdsTest); the
# build never refreshes them by itself: -Dkollect.crds.update=true does.
# Two modules build at once where the module graph allows it (informers beside extract, export
# and the sinks; bench beside anything): their integration tests mostly wait on API servers and
# brokers, so one module's waits are another's CPU. KOLLECT_BUILD_THREADS=1 builds one at a time.
./mvnw -B -ntp -T "${KOLLECT_BUILD_THREADS:-2}" verify "$@"
