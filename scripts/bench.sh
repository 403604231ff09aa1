#!/usr/bin/env bash
# Operator-at-scale benchmarks (docs/benchmarks.md, "Operator at scale (kollect-bench)").
#
#   scripts/bench.sh <p1|p2|p5|p6|p7|p8|postgres> [options]  e.g. scripts/bench.sh p5 --objects 5000,20000 (p7: cost per added KollectCluster; p8: 1 vs 4 shards by object and by cluster; postgres: the SQL inventory sink, --history)
#   scripts/bench.sh <scenario> --help           the scenario's options
#
# Builds the packaged operator and the runner offline (skipping tests), then runs the runner, which
# starts its own kube-apiserver 1.20.2 and the operator jar as a child process. The table goes to
# stdout, progress to stderr, full results to kollect-bench/target/bench-<scenario>-<time>.json.
# Set BENCH_SKIP_BUILD=1 to reuse the jars already built.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
if [[ "${BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  ./mvnw -o -q -B -ntp -DskipTests -Pbench-jar -pl kollect-operator,kollect-bench -am package
fi
# Run a copy, so that a rebuild during a long run cannot change the jar under the running JVM.
jar=$(mktemp --suffix=.jar)
trap 'rm -f "$jar"' EXIT
cp kollect-bench/target/kollect-bench.jar "$jar"
java -Xmx2g -jar "$jar" "$@" --repo "$PWD"
