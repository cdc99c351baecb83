#!/usr/bin/env bash
# Drives editors/nvim/nlang.lua with nvim-dap in a headless Neovim (see
# docs/editors.md). NVIM_DAP names an nvim-dap checkout; Neovim comes from
# Debian (apt-get install neovim) or elsewhere.
#   NVIM_DAP=path/to/nvim-dap bash editors/nvim/check.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
: "${NVIM_DAP:?set NVIM_DAP to an nvim-dap checkout (0.6.0 for Neovim 0.7/0.8)}"
NVIM_DAP="$(cd "$NVIM_DAP" && pwd)"
command -v nvim >/dev/null || { echo "nvim not found (apt-get install neovim)"; exit 1; }
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/nlangdbg" ./cmd/nlangdbg)
nvim --version | head -1
cd "$repo"
NVIM_DAP="$NVIM_DAP" NLANGDBG="$bin/nlangdbg" NLANG_FIXTURE="$repo/editors/vscode-e2e/workspace/workers.n" \
  timeout 120 nvim --headless -u NONE -c "luafile $here/check.lua"
