#!/usr/bin/env bash
# Makes io.fabric8:kube-api-test work on an offline Debian bookworm machine by building
# kube-apiserver and kubectl from Debian's kubernetes source package (see shared DESIGN.md).
# Idempotent: does nothing when the binaries are already in place.
# On a machine that can reach kube-api-test's own download site, set KOLLECT_SKIP_PROVISION=1
# and kube-api-test downloads what it needs itself.
set -euo pipefail

K8S_VERSION=1.20.2
DEST="${HOME}/.kubeapitest/k8s/${K8S_VERSION}-linux-amd64"
WORK="${KOLLECT_K8S_BUILD_DIR:-${HOME}/.cache/kollect/k8s-build}"

log() { echo "[provision-kube-binaries] $*" >&2; }

if [[ "${KOLLECT_SKIP_PROVISION:-0}" == "1" ]]; then
  log "KOLLECT_SKIP_PROVISION=1: leaving binaries to kube-api-test's own download"
  exit 0
fi

if [[ -x "$DEST/kube-apiserver" && -x "$DEST/kubectl" && -x "$DEST/etcd" ]]; then
  log "binaries present in $DEST"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

# 1. deb-src for bookworm main, and the build dependencies.
if ! grep -Rqs -E '^(deb-src .*bookworm|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
  log "enabling deb-src for bookworm main"
  # deb822 form with the same keyring as Debian's own entry: apt refuses two entries for one
  # URI whose Signed-By differ.
  $SUDO tee /etc/apt/sources.list.d/kollect-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq golang-go etcd-server rsync jq golang-github-modern-go-reflect2-dev dpkg-dev >/dev/null

mkdir -p "$WORK"
cd "$WORK"
SRC=$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
if [[ -z "$SRC" ]]; then
  log "fetching kubernetes source package"
  apt-get source -qq --download-only kubernetes >/dev/null
  dpkg-source -x --no-check kubernetes_*.dsc >/dev/null
  SRC=$(find . -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
fi
SRC=$(cd "$SRC" && pwd)

# 2. The vendored reflect2 1.0.1 crashes under Go >= 1.18 (fatal error: fault in mapiterinit);
#    replace it with Debian's 1.0.2 sources.
R2="$SRC/vendor/github.com/modern-go/reflect2"
if ! grep -q 'kollect: reflect2 1.0.2' "$R2/.kollect-replaced" 2>/dev/null; then
  log "replacing vendored reflect2 with Debian's 1.0.2"
  rm -f "$R2"/*.go "$R2"/*.s
  cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$R2"/
  cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.s "$R2"/ 2>/dev/null || true
  rm -f "$R2"/*_test.go
  echo 'kollect: reflect2 1.0.2' > "$R2/.kollect-replaced"
fi

# 3. Build kube-apiserver and kubectl.
export GOPATH="$WORK/.go"
mkdir -p "$GOPATH/src/k8s.io"
ln -sfn "$SRC" "$GOPATH/src/k8s.io/kubernetes"
export GO111MODULE=off GOFLAGS=-mod=vendor GOCACHE="$WORK/.gocache"
cd "$GOPATH/src/k8s.io/kubernetes"
if [[ ! -x _output/bin/kube-apiserver || ! -x _output/bin/kubectl ]]; then
  log "building kube-apiserver and kubectl (a few minutes on 2 cores)"
  make WHAT="cmd/kube-apiserver cmd/kubectl" >"$WORK/build.log" 2>&1 || { tail -n 40 "$WORK/build.log" >&2; exit 1; }
fi

# 4. Install where kube-api-test looks.
mkdir -p "$DEST"
cp _output/bin/kube-apiserver _output/bin/kubectl "$DEST/"
cp /usr/bin/etcd "$DEST/etcd"
chmod +x "$DEST"/*
log "installed kube-apiserver, kubectl, etcd ${K8S_VERSION} into $DEST"
