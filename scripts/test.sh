#!/usr/bin/env bash
# Runs every test: unit tests (Surefire) and integration tests on a real kube-apiserver (Failsafe).
# Provisions the API server binaries and the PostgreSQL 15 server (the postgres sink's tests) first
# when they are missing (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
# kollect-testing's TestPostgresServer runs Debian's postgresql-15 binaries
bash scripts/provision-postgres.sh
# The committed deploy/crds must match what the CRD classes generate (GeneratedCrdsTest); the
# build never refreshes them by itself: -Dkollect.crds.update=true does.
./mvnw -B -ntp verify "$@"
