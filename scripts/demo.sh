#!/usr/bin/env bash
# The main job with no cluster: builds Kollect, starts two embedded kube-apiservers (the sample
# catalog on one, a second cluster on the other) and a local PostgreSQL, runs the engine, serves
# the inventory of both clusters and writes it into the database (then prints a psql command and
# the images per cluster).
# Extra arguments go to `kollect demo`
# (e.g. --duration 60s). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/provision-kube-binaries.sh
bash scripts/provision-postgres.sh
./mvnw -B -ntp -q -DskipTests -pl kollect-operator -am package
exec java -jar kollect-operator/target/kollect.jar demo "$@"
