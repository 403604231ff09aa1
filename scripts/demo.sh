#!/usr/bin/env bash
# The main job with no cluster: builds Kollect, starts an embedded kube-apiserver with the sample
# catalog, runs the engine and serves the inventory. Extra arguments go to `kollect demo`
# (e.g. --duration 60s). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
./mvnw -B -ntp -q -DskipTests -pl kollect-operator -am install
exec java -jar kollect-operator/target/kollect.jar demo "$@"
