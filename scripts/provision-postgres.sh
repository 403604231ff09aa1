#!/usr/bin/env bash
# Installs Debian's postgresql-15 server binaries (/usr/lib/postgresql/15/bin) when missing:
# the postgres sink's tests and `kollect demo` run a real PostgreSQL from there. Idempotent.
set -euo pipefail
if [[ ! -x /usr/lib/postgresql/15/bin/postgres ]]; then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "[postgres] installing postgresql-15 (the postgres sink's tests and the demo run a real server)" >&2
  $SUDO apt-get update -qq
  # the package's own cluster is not used (tests and the demo run initdb in a temporary
  # directory): do not let the package create and start one, unless the machine already says
  # otherwise
  if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
    $SUDO mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    postgresql-15
fi
