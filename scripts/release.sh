#!/usr/bin/env bash
# Builds the release artifacts into target/release/ and writes SHA256SUMS over them:
#   kollect-<v>-cli.tar.gz / .zip   the CLI distribution: bin/kollect (launcher) + lib/kollect.jar
#   <library>-<v>.jar, -sources.jar, -javadoc.jar, .pom   for every library module
#   kollect-bom-<v>.pom              the BOM embedders import to pin one version
#   kollect-operator-<v>-sbom.json   CycloneDX SBOM of what the operator ships
# The operator image is built by the release workflow (Jib), not here.
#
#   bash scripts/release.sh              build (-Prelease, tests skipped) and collect
#   bash scripts/release.sh --collect    collect what an earlier -Prelease build left (.ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--collect" ]]; then
  shift
else
  ./mvnw -B -ntp -Prelease -DskipTests package "$@"
fi

version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' kollect-bom/pom.xml | head -n 1)
libraries=(kollect-extract kollect-export kollect-export-kafka kollect-export-postgres kollect-export-otlp kollect-informers kollect-core kollect-testing)
out=target/release
rm -rf "$out"
mkdir -p "$out"

fail() { echo "[release] $*" >&2; exit 1; }
for m in "${libraries[@]}"; do
  for suffix in "" -sources -javadoc; do
    jar="$m/target/$m-$version$suffix.jar"
    [[ -f "$jar" ]] || fail "missing $jar (was the build run with -Prelease?)"
    cp "$jar" "$out/"
  done
  cp "$m/pom.xml" "$out/$m-$version.pom"
done
cp kollect-bom/pom.xml "$out/kollect-bom-$version.pom"
for f in "kollect-operator/target/kollect-$version-cli.tar.gz" "kollect-operator/target/kollect-$version-cli.zip"; do
  [[ -f "$f" ]] || fail "missing $f"
  cp "$f" "$out/"
done
[[ -f kollect-operator/target/kollect-operator-sbom.json ]] || fail "missing the operator SBOM"
cp kollect-operator/target/kollect-operator-sbom.json "$out/kollect-operator-$version-sbom.json"

# The distribution must run as unpacked: its launcher finds the jar and prints the version.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
tar -xzf "$out/kollect-$version-cli.tar.gz" -C "$check"
printed=$("$check/kollect-$version/bin/kollect" version)
grep -q "^kollect $version" <<<"$printed" || fail "bin/kollect version printed: $printed"

(cd "$out" && sha256sum -- * > SHA256SUMS && sha256sum --quiet -c SHA256SUMS)
echo "[release] $(($(ls "$out" | wc -l) - 1)) artifacts and SHA256SUMS in $out (kollect $version)"
