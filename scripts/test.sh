#!/usr/bin/env bash
# Runs every test: unit tests (Surefire) and integration tests on a real kube-apiserver (Failsafe).
# Provisions the API server binaries first when they are missing (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
# In CI the committed deploy/crds must already match what the CRD classes generate (a local
# build refreshes the copy instead).
./mvnw -B -ntp verify ${CI:+-Dkollect.crds.verify=true} "$@"
