#!/usr/bin/env bash
# CI for the editor integrations (docs/editors.md): the VS Code extension's
# tests (grammar, descriptor factory, manifest, .vsix contents), its .vsix,
# the Neovim recipe's configuration (editors/nvim/check.lua drives it for
# real where nvim-dap is at hand: not from the registries CI reaches), and
# the real VS Code (code-server in headless Chromium) driving a session.
# Everything comes from the npm registry and Debian's packages.
# Artifacts: editors/.out/ (the .vsix, screenshots, logs).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
out="$PWD/editors/.out"
rm -rf "$out"
mkdir -p "$out"

echo "== editors: VS Code extension tests"
(
  cd editors/vscode
  npm ci --no-audit --no-fund
  npm test
  npx vsce package --out "$out/nlang.vsix"
)
echo "editors: extension tests and .vsix in $((SECONDS - start)) s"

echo "== editors: the Neovim recipe against the server's arguments"
node --test editors/nvim/recipe.test.js

bash editors/vscode-e2e/run.sh "$out"
echo "editors: done in $((SECONDS - start)) s"
