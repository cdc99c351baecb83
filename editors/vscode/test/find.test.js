'use strict';
// Finding nlangdbg: the setting first, then PATH, on Linux and macOS (real
// files in a temporary directory) and on Windows (a file system stand-in
// with Windows paths, PATHEXT and a case-insensitive "Path").

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { findDebugger, NotFoundError } = require('../lib/find');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-find-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

/** exe writes an executable (or, with mode, any) file and returns its path. */
function exe(rel, mode = 0o755) {
  const p = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, '#!/bin/sh\n');
  fs.chmodSync(p, mode);
  return p;
}

const onPath = exe('bin2/nlangdbg');
exe('bin1/nlangdbg', 0o644); // not executable: PATH skips it
const configured = exe('custom/my-nlangdbg');
const inWorkspace = exe('ws/tools/nlangdbg');
const inHome = exe('home/go/bin/nlangdbg');

for (const platform of ['linux', 'darwin']) {
  test(`${platform}: the setting wins over PATH`, () => {
    const r = findDebugger({ platform, setting: configured, env: { PATH: path.dirname(onPath) } });
    assert.deepEqual(r, { path: configured, via: 'setting' });
  });

  test(`${platform}: a relative setting is relative to the workspace folder; ~ and \${workspaceFolder} expand`, () => {
    const ws = path.join(tmp, 'ws');
    const home = path.join(tmp, 'home');
    assert.equal(findDebugger({ platform, setting: 'tools/nlangdbg', workspaceFolder: ws, env: {} }).path, inWorkspace);
    assert.equal(findDebugger({ platform, setting: '${workspaceFolder}/tools/nlangdbg', workspaceFolder: ws, env: {} }).path, inWorkspace);
    assert.equal(findDebugger({ platform, setting: '~/go/bin/nlangdbg', home, env: {} }).path, inHome);
  });

  test(`${platform}: without the setting, the first executable nlangdbg on PATH`, () => {
    const PATH = ['', path.join(tmp, 'nothing-here'), path.join(tmp, 'bin1'), path.join(tmp, 'bin2')].join(':');
    assert.deepEqual(findDebugger({ platform, setting: '', env: { PATH } }), { path: onPath, via: 'PATH' });
  });

  test(`${platform}: a setting naming no file is an error (PATH is not tried)`, () => {
    assert.throws(
      () => findDebugger({ platform, setting: path.join(tmp, 'missing'), env: { PATH: path.dirname(onPath) } }),
      (e) => e instanceof NotFoundError && /"nlang\.debugger\.path" is ".*missing", but there is no file at/.test(e.message),
    );
  });

  test(`${platform}: a setting naming a file that cannot run says so`, () => {
    assert.throws(
      () => findDebugger({ platform, setting: path.join(tmp, 'bin1', 'nlangdbg'), env: {} }),
      /not executable/,
    );
  });

  test(`${platform}: nothing on PATH tells the user what to set`, () => {
    assert.throws(
      () => findDebugger({ platform, env: { PATH: path.join(tmp, 'bin1') } }),
      (e) => e instanceof NotFoundError && /nlangdbg was not found on PATH.*set "nlang\.debugger\.path"/.test(e.message),
    );
  });

  test(`${platform}: a relative setting with no folder open is an error`, () => {
    assert.throws(() => findDebugger({ platform, setting: 'tools/nlangdbg', env: {} }), /no folder is open/);
  });
}

/** winFs is a Windows file system stand-in: a set of files, names case-insensitive. */
function winFs(files) {
  const set = new Set(files.map((f) => f.toLowerCase()));
  return { isFile: (p) => set.has(p.toLowerCase()), isExecutable: () => true };
}

test('win32: PATH (named "Path") with PATHEXT finds nlangdbg.exe', () => {
  const fsv = winFs(['C:\\Tools\\nlangdbg.EXE', 'C:\\Other\\nlangdbg.txt']);
  const env = { Path: 'C:\\Windows;"C:\\Other";C:\\Tools', PATHEXT: '.COM;.EXE;.BAT' };
  assert.deepEqual(findDebugger({ platform: 'win32', env, fs: fsv }), { path: 'C:\\Tools\\nlangdbg.EXE', via: 'PATH' });
});

test('win32: quoted PATH entries and the default PATHEXT', () => {
  const fsv = winFs(['C:\\Program Files\\nlangdbg\\nlangdbg.exe']);
  const env = { PATH: '"C:\\Program Files\\nlangdbg"' };
  assert.equal(findDebugger({ platform: 'win32', env, fs: fsv }).path, 'C:\\Program Files\\nlangdbg\\nlangdbg.EXE');
});

test('win32: a setting without .exe finds the .exe; a relative one is relative to the folder', () => {
  const fsv = winFs(['D:\\bin\\nlangdbg.exe', 'C:\\ws\\tools\\nlangdbg.exe']);
  assert.deepEqual(findDebugger({ platform: 'win32', setting: 'D:\\bin\\nlangdbg', env: {}, fs: fsv }), {
    path: 'D:\\bin\\nlangdbg.EXE',
    via: 'setting',
  });
  assert.equal(
    findDebugger({ platform: 'win32', setting: 'tools\\nlangdbg.exe', workspaceFolder: 'C:\\ws', env: {}, fs: fsv }).path,
    'C:\\ws\\tools\\nlangdbg.exe',
  );
  assert.equal(
    findDebugger({ platform: 'win32', setting: '~\\go\\bin\\nlangdbg.exe', home: 'C:\\Users\\ann', env: {}, fs: winFs(['C:\\Users\\ann\\go\\bin\\nlangdbg.exe']) }).path,
    'C:\\Users\\ann\\go\\bin\\nlangdbg.exe',
  );
});

test('win32: not on PATH is an error', () => {
  assert.throws(
    () => findDebugger({ platform: 'win32', env: { Path: 'C:\\Windows' }, fs: winFs([]) }),
    /nlangdbg was not found on PATH/,
  );
});
