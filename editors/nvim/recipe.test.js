'use strict';
// The Neovim recipe without Neovim: the snippet in docs/editors.md is the
// one in nlang.lua, and its configurations use only attributes the server
// accepts (the VS Code manifest's, which TestVSCodeManifestLaunchAttributes
// ties to the server's launch arguments). check.lua drives it for real.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const repo = path.join(__dirname, '..', '..');
const lua = fs.readFileSync(path.join(__dirname, 'nlang.lua'), 'utf8');
const docs = fs.readFileSync(path.join(repo, 'docs', 'editors.md'), 'utf8');
const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'editors', 'vscode', 'package.json'), 'utf8'));
const attrs = manifest.contributes.debuggers[0].configurationAttributes;

test('the snippet in docs/editors.md is the one in nlang.lua', () => {
  const m = /<!-- nvim-recipe -->\n```lua\n([\s\S]*?)```\n<!-- \/nvim-recipe -->/.exec(docs);
  assert.ok(m, 'docs/editors.md has no nvim-recipe block');
  assert.ok(m[1].length > 500, 'the snippet is short');
  assert.ok(lua.includes(m[1]), 'the snippet differs from editors/nvim/nlang.lua');
});

/** configurations returns the fields of each entry of dap.configurations.nlang. */
function configurations() {
  const block = /dap\.configurations\.nlang = \{\n([\s\S]*?)\n\}\n/.exec(lua)[1];
  return block.split(/\n  \},?\n?/).filter((e) => e.trim().startsWith('{')).map((e) => {
    const fields = {};
    for (const m of e.matchAll(/^ {4}(\w+) = (.*?),?$/gm)) fields[m[1]] = m[2];
    return fields;
  });
}

test('the configurations use only attributes the server accepts', () => {
  const confs = configurations();
  assert.deepEqual(confs.map((c) => c.request), ["'launch'", "'launch'", "'launch'", "'attach'"]);
  for (const c of confs) {
    const req = c.request.replace(/'/g, '');
    const allowed = new Set(['type', 'request', 'name', ...Object.keys(attrs[req].properties)]);
    for (const k of Object.keys(c)) assert.ok(allowed.has(k), `${c.name}: ${k} is not a ${req} attribute`);
    assert.equal(c.type, "'nlang'");
    for (const k of attrs[req].required || []) assert.ok(k in c, `${c.name}: no ${k}`);
  }
});

test('the adapter runs nlangdbg dap, or connects to host and port for an attach', () => {
  assert.match(lua, /type = 'executable', command = vim\.g\.nlangdbg_path or 'nlangdbg', args = \{ 'dap' \}/);
  assert.match(lua, /type = 'server', host = config\.host or '127\.0\.0\.1', port = config\.port/);
});

test('edit and continue: :NLangReload and a write while paused send nlang/reload', () => {
  assert.match(lua, /session:request\('nlang\/reload', args or \{\}/);
  assert.match(lua, /nvim_create_user_command\('NLangReload'/);
  assert.match(lua, /nvim_create_autocmd\('BufWritePost', \{\n\s+pattern = '\*\.n'/);
  assert.match(lua, /session\.stopped_thread_id/);
});
