'use strict';
// Loads the extension's TextMate grammar with vscode-textmate and
// vscode-oniguruma (the engine VS Code itself uses) and tokenizes text.

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..');
const grammarPath = path.join(root, 'syntaxes', 'nlang.tmLanguage.json');

let grammarPromise;

/** grammar resolves to the NLang grammar (loaded once). */
function grammar() {
  if (!grammarPromise) {
    const wasm = fs.readFileSync(path.join(require.resolve('vscode-oniguruma'), '..', 'onig.wasm')).buffer;
    const onigLib = oniguruma.loadWASM(wasm).then(() => ({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }));
    const registry = new vsctm.Registry({
      onigLib,
      loadGrammar: async (scopeName) => {
        if (scopeName !== 'source.nlang') return null;
        return vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath);
      },
    });
    grammarPromise = registry.loadGrammar('source.nlang');
  }
  return grammarPromise;
}

/**
 * tokenize returns, per line, the tokens of text:
 * [{ line, start, end, text, scopes }] (scopes outermost first).
 */
async function tokenize(text) {
  const g = await grammar();
  const lines = text.split(/\r?\n/);
  const out = [];
  let stack = vsctm.INITIAL;
  lines.forEach((lineText, line) => {
    const r = g.tokenizeLine(lineText, stack);
    const toks = r.tokens.map((t) => ({
      line,
      start: t.startIndex,
      end: Math.min(t.endIndex, lineText.length),
      text: lineText.slice(t.startIndex, t.endIndex),
      scopes: t.scopes,
    }));
    out.push(toks);
    stack = r.ruleStack;
  });
  return out;
}

/** scopeAt returns the scopes of the token covering (line, col). */
function scopeAt(lines, line, col) {
  const t = lines[line].find((tok) => tok.start <= col && col < tok.end);
  return t ? t.scopes : [];
}

module.exports = { grammar, tokenize, scopeAt, grammarPath, root };
