#!/usr/bin/env bash
# The main job with no cluster: builds Kollect, starts two embedded kube-apiservers (the sample
# catalog on one, a second cluster on the other), runs the engine and serves the inventory of both.
# Extra arguments go to `kollect demo`
# (e.g. --duration 60s). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
./mvnw -B -ntp -q -DskipTests -pl kollect-operator -am install
exec java -jar kollect-operator/target/kollect.jar demo "$@"
