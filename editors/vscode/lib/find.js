'use strict';
// Finding the nlangdbg binary: the setting nlang.debugger.path first, then
// PATH. Pure functions of their inputs (platform, environment, a file
// system view), so that tests can play Linux, macOS and Windows on any
// machine.

const nodeFs = require('fs');
const nodePath = require('path');
const os = require('os');

const BINARY = 'nlangdbg';
const SETTING = 'nlang.debugger.path';

/** A file system view backed by the real file system. */
const realFs = {
  /** @param {string} p @returns {boolean} p is a regular file */
  isFile(p) {
    try {
      return nodeFs.statSync(p).isFile();
    } catch {
      return false;
    }
  },
  /** @param {string} p @returns {boolean} p may be executed (always true on Windows) */
  isExecutable(p) {
    if (process.platform === 'win32') return true;
    try {
      nodeFs.accessSync(p, nodeFs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

/** The error thrown when no binary can be found; its message says what to do. */
class NotFoundError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** @returns {typeof nodePath.posix} the path module of the platform */
function pathFor(platform) {
  return platform === 'win32' ? nodePath.win32 : nodePath.posix;
}

/** The PATH entry of env; on Windows its name is case-insensitive ("Path"). */
function pathVariable(env, platform) {
  if (platform !== 'win32') return env.PATH || '';
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH');
  return key ? env[key] || '' : '';
}

/** The extensions a command may have on Windows, from PATHEXT. */
function pathExtensions(env, platform) {
  if (platform !== 'win32') return [''];
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATHEXT');
  const exts = (key && env[key] ? env[key] : '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return exts;
}

/**
 * expandSetting turns the value of nlang.debugger.path into an absolute
 * path: ~ is the home directory, ${workspaceFolder} and ${userHome} are
 * replaced, and a relative path is relative to the workspace folder.
 */
function expandSetting(value, { platform, home, workspaceFolder }) {
  const p = pathFor(platform);
  let v = value.trim();
  v = v.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder) v = v.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  if (v === '~') v = home;
  else if (v.startsWith('~/') || (platform === 'win32' && v.startsWith('~\\'))) v = p.join(home, v.slice(2));
  if (!p.isAbsolute(v)) {
    if (!workspaceFolder) {
      throw new NotFoundError(
        `"${SETTING}" is the relative path "${value}", but no folder is open to resolve it against; use an absolute path`,
      );
    }
    v = p.join(workspaceFolder, v);
  }
  return p.normalize(v);
}

/**
 * findDebugger returns where nlangdbg is and how it was found:
 * { path, via: "setting" | "PATH" }. It throws a NotFoundError whose
 * message tells the user what to set.
 *
 * @param {object} o
 * @param {string} [o.setting] the value of nlang.debugger.path ('' or undefined: unset)
 * @param {string} [o.workspaceFolder] the folder relative settings are relative to
 * @param {NodeJS.ProcessEnv} [o.env] the environment (PATH, PATHEXT)
 * @param {string} [o.platform] process.platform or a stand-in
 * @param {string} [o.home] the home directory
 * @param {{isFile(p: string): boolean, isExecutable(p: string): boolean}} [o.fs]
 */
function findDebugger(o = {}) {
  const platform = o.platform || process.platform;
  const env = o.env || process.env;
  const fs = o.fs || realFs;
  const home = o.home || os.homedir();
  const p = pathFor(platform);
  const exts = pathExtensions(env, platform);

  const setting = (o.setting || '').trim();
  if (setting !== '') {
    const abs = expandSetting(setting, { platform, home, workspaceFolder: o.workspaceFolder });
    const candidates = [abs];
    if (platform === 'win32' && p.extname(abs) === '') candidates.push(...exts.map((e) => abs + e));
    for (const c of candidates) {
      if (fs.isFile(c)) {
        if (!fs.isExecutable(c)) {
          throw new NotFoundError(`"${SETTING}" names ${c}, which is not executable (chmod +x it)`);
        }
        return { path: c, via: 'setting' };
      }
    }
    throw new NotFoundError(`"${SETTING}" is "${setting}", but there is no file at ${abs}`);
  }

  const dirs = pathVariable(env, platform)
    .split(p.delimiter)
    .map((d) => (platform === 'win32' ? d.replace(/^"(.*)"$/, '$1') : d))
    .filter((d) => d !== '');
  for (const dir of dirs) {
    for (const ext of exts) {
      const c = p.join(dir, BINARY + ext);
      if (fs.isFile(c) && fs.isExecutable(c)) return { path: c, via: 'PATH' };
    }
  }
  throw new NotFoundError(
    `${BINARY} was not found on PATH; install it (go install ./cmd/nlangdbg in the nlangdbg repository) ` +
      `or set "${SETTING}" to the binary`,
  );
}

module.exports = { findDebugger, expandSetting, NotFoundError, realFs, BINARY, SETTING };
