'use strict';
// The grammar against every NLang program in testdata/run: an independent
// little lexer (written from the language's lexical rules) finds the
// keywords, strings, interpolations, chars, comments and numbers, and each
// must carry its scope in the tokens vscode-textmate produces. A few
// programs also have a scope snapshot, reviewed by hand
// (UPDATE_SNAPSHOTS=1 rewrites them).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { tokenize, scopeAt } = require('./tokenize');

const repo = path.join(__dirname, '..', '..', '..');
const testdata = path.join(repo, 'testdata', 'run');

/** Every .n file under dir, sorted. */
function programs(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...programs(p));
    else if (e.name.endsWith('.n')) out.push(p);
  }
  return out.sort();
}

// The keywords of the lexer (LANGUAGE.md section 1) and the scope each must get.
const keywordScopes = {};
for (const k of 'if else elseif while do for foreach in switch case default break continue return'.split(' '))
  keywordScopes[k] = 'keyword.control.nlang';
for (const k of 'try catch finally throw assert'.split(' ')) keywordScopes[k] = 'keyword.control.exception.nlang';
keywordScopes.import = 'keyword.control.import.nlang';
keywordScopes.using = 'keyword.other.using.nlang';
keywordScopes.namespace = 'keyword.other.using.nlang';
keywordScopes.new = 'keyword.operator.new.nlang';
keywordScopes.as = 'keyword.operator.as.nlang';
for (const k of 'class struct enum interface'.split(' ')) keywordScopes[k] = `storage.type.${k}.nlang`;
for (const k of 'public private protected static virtual native const out state'.split(' '))
  keywordScopes[k] = 'storage.modifier.nlang';
keywordScopes.implements = 'storage.modifier.implements.nlang';
keywordScopes.true = 'constant.language.boolean.nlang';
keywordScopes.false = 'constant.language.boolean.nlang';
keywordScopes.null = 'constant.language.null.nlang';
keywordScopes.this = 'variable.language.this.nlang';
keywordScopes.super = 'variable.language.super.nlang';
for (const k of 'bool byte char double float int long short string ubyte uint ulong ushort void'.split(' '))
  keywordScopes[k] = 'storage.type.primitive.nlang';

/**
 * lex is the reference lexer. It returns spans
 * { kind, line, col, len, text } for comments, strings (whole literal),
 * interpolations (`${name}` inside strings), chars, numbers and keywords.
 */
function lex(src) {
  const spans = [];
  const lines = src.split(/\r?\n/);
  let inBlock = false;
  lines.forEach((s, line) => {
    let i = 0;
    const add = (kind, col, len) => spans.push({ kind, line, col, len, text: s.slice(col, col + len) });
    while (i < s.length) {
      if (inBlock) {
        const end = s.indexOf('*/', i);
        const stop = end < 0 ? s.length : end + 2;
        add('comment', i, stop - i);
        i = stop;
        if (end >= 0) inBlock = false;
        continue;
      }
      const c = s[i];
      if (s.startsWith('//', i)) {
        add('comment', i, s.length - i);
        break;
      }
      if (s.startsWith('/*', i)) {
        inBlock = true;
        add('comment', i, 2);
        i += 2;
        continue;
      }
      if (c === '"') {
        let j = i + 1;
        while (j < s.length && s[j] !== '"') {
          if (s[j] === '\\') j += 2;
          else if (s.startsWith('$$', j)) j += 2;
          else {
            const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(s.slice(j));
            if (m) {
              add('interp', j, m[0].length);
              j += m[0].length;
            } else j++;
          }
        }
        add('string', i, Math.min(j + 1, s.length) - i);
        i = j + 1;
        continue;
      }
      if (c === "'") {
        let j = i + 1;
        while (j < s.length && s[j] !== "'") j += s[j] === '\\' ? 2 : 1;
        add('char', i, Math.min(j + 1, s.length) - i);
        i = j + 1;
        continue;
      }
      if (/[A-Za-z_]/.test(c)) {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
        if (Object.prototype.hasOwnProperty.call(keywordScopes, m[0])) add('keyword', i, m[0].length);
        i += m[0].length;
        continue;
      }
      const prev = i > 0 ? s[i - 1] : ' ';
      if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[i + 1] || '') && !/[A-Za-z0-9_.)\]]/.test(prev))) {
        const m = /^(?:0[xX][0-9A-Fa-f]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?[fF]?)/.exec(s.slice(i));
        add('number', i, m[0].length);
        i += m[0].length;
        continue;
      }
      i++;
    }
  });
  return spans;
}

const has = (scopes, prefix) => scopes.some((s) => s === prefix || s.startsWith(prefix + '.') || s.startsWith(prefix));

/** check returns the mismatches between the reference lexer and the grammar for one file. */
async function check(file) {
  const src = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const lines = await tokenize(src);
  const srcLines = src.split(/\r?\n/);
  const errors = [];
  const where = (sp, col) => `${path.relative(repo, file)}:${sp.line + 1}:${col + 1}`;
  const want = (sp, col, prefix) => {
    const scopes = scopeAt(lines, sp.line, col);
    if (!has(scopes, prefix)) errors.push(`${where(sp, col)}: ${sp.kind} ${JSON.stringify(sp.text)}: got [${scopes.join(' ')}], want ${prefix}`);
  };
  for (const sp of lex(src)) {
    const last = sp.col + sp.len - 1;
    switch (sp.kind) {
      case 'comment':
        want(sp, sp.col, 'comment.');
        want(sp, last, 'comment.');
        break;
      case 'string':
        for (let c = sp.col; c <= last; c++) want(sp, c, 'string.quoted.double.nlang');
        break;
      case 'interp':
        want(sp, sp.col, 'meta.interpolation.nlang');
        want(sp, sp.col, 'punctuation.section.embedded.begin.nlang');
        for (let c = sp.col + 2; c < last; c++) want(sp, c, 'variable.other.interpolated.nlang');
        want(sp, last, 'punctuation.section.embedded.end.nlang');
        break;
      case 'char':
        want(sp, sp.col, 'string.quoted.single.nlang');
        want(sp, last, 'string.quoted.single.nlang');
        break;
      case 'number':
        want(sp, sp.col, 'constant.numeric.');
        want(sp, last, 'constant.numeric.');
        break;
      case 'keyword':
        want(sp, sp.col, keywordScopes[sp.text]);
        break;
    }
  }
  // Invalid escapes and interpolations are marked, and only where a
  // compile error is expected (a `// ###` line).
  lines.forEach((toks, line) => {
    for (const t of toks) {
      if (t.scopes.some((s) => s.startsWith('invalid.')) && !srcLines[line].includes('// ###')) {
        errors.push(`${path.relative(repo, file)}:${line + 1}:${t.start + 1}: ${JSON.stringify(t.text)} marked invalid on a line that compiles`);
      }
    }
  });
  return errors;
}

const files = programs(testdata);

test('testdata has programs to tokenize', () => {
  assert.ok(files.length >= 200, `only ${files.length} programs under ${testdata}`);
});

test('every testdata program: keywords, strings, interpolations, chars, comments and numbers get their scopes', async () => {
  let spans = 0;
  const errors = [];
  for (const f of files) {
    spans += lex(fs.readFileSync(f, 'utf8')).length;
    errors.push(...(await check(f)));
  }
  assert.ok(spans > 10000, `the reference lexer found only ${spans} spans`);
  assert.deepEqual(errors.slice(0, 20), [], `${errors.length} mismatches`);
});

test('the reference lexer finds what it should', () => {
  const spans = lex('import io; // c\nint x = 0x1F + .5 + 2e3; string s = "a${x}$${y}\\n"; char c = \'\\n\'; /* b\n */');
  assert.deepEqual(
    spans.map((s) => [s.kind, s.text]),
    [
      ['keyword', 'import'], ['comment', '// c'], ['keyword', 'int'], ['number', '0x1F'], ['number', '.5'],
      ['number', '2e3'], ['keyword', 'string'], ['interp', '${x}'], ['string', '"a${x}$${y}\\n"'],
      ['keyword', 'char'], ['char', "'\\n'"], ['comment', '/*'], ['comment', ' b'], ['comment', ' */'],
    ],
  );
});

/** scopesOf returns the scopes of the token covering the first occurrence of needle on a line. */
async function scopesOf(line, needle, nth = 0) {
  const lines = await tokenize(line);
  let col = -1;
  for (let k = 0; k <= nth; k++) col = line.indexOf(needle, col + 1);
  assert.ok(col >= 0, `${needle} not in ${line}`);
  return scopeAt(lines, 0, col).filter((s) => s !== 'source.nlang');
}

test('interpolation: ${name} is marked, $$ is an escape, $${x} and a lone $ are plain text, ${a.b} is invalid', async () => {
  const line = 'io.print("a=${a}, $$5 and $${b} and $ alone ${this.x}");';
  assert.deepEqual(await scopesOf(line, '${a}'), [
    'string.quoted.double.nlang', 'meta.interpolation.nlang', 'punctuation.section.embedded.begin.nlang',
  ]);
  assert.deepEqual(await scopesOf(line, 'a}'), [
    'string.quoted.double.nlang', 'meta.interpolation.nlang', 'variable.other.interpolated.nlang',
  ]);
  assert.deepEqual(await scopesOf(line, '$$'), ['string.quoted.double.nlang', 'constant.character.escape.dollar.nlang']);
  assert.deepEqual(await scopesOf(line, '{b}'), ['string.quoted.double.nlang']);
  assert.deepEqual(await scopesOf(line, '$ alone'), ['string.quoted.double.nlang']);
  assert.deepEqual(await scopesOf(line, '${this'), ['string.quoted.double.nlang', 'invalid.illegal.interpolation.nlang']);
});

test('escapes: the listed ones are constants, any other is invalid', async () => {
  const line = 'string s = "\\n\\t\\u00e9\\q";';
  assert.deepEqual(await scopesOf(line, '\\n'), ['string.quoted.double.nlang', 'constant.character.escape.nlang']);
  assert.deepEqual(await scopesOf(line, '\\u00e9'), ['string.quoted.double.nlang', 'constant.character.escape.nlang']);
  assert.deepEqual(await scopesOf(line, '\\q'), ['string.quoted.double.nlang', 'invalid.illegal.unknown-escape.nlang']);
});

test('declarations, types, calls and imports', async () => {
  const cls = 'class Square : Shape implements Drawable, Named {';
  assert.deepEqual(await scopesOf(cls, 'Square'), ['entity.name.type.class.nlang']);
  assert.deepEqual(await scopesOf(cls, 'Shape'), ['entity.other.inherited-class.nlang']);
  assert.deepEqual(await scopesOf(cls, 'implements'), ['storage.modifier.implements.nlang']);
  assert.deepEqual(await scopesOf(cls, 'Named'), ['entity.other.inherited-class.nlang']);
  assert.deepEqual(await scopesOf('import thread;', 'thread'), ['entity.name.namespace.nlang']);
  assert.deepEqual(await scopesOf('Channel<int> c = {};', 'Channel'), ['support.type.builtin.nlang']);
  assert.deepEqual(await scopesOf('catch (ChannelClosedException e) {', 'ChannelClosedException'), ['support.type.exception.nlang']);
  assert.deepEqual(await scopesOf('Producer p = Producer();', 'Producer'), ['entity.name.type.nlang']);
  assert.deepEqual(await scopesOf('Producer p = Producer();', 'Producer', 1), ['entity.name.function.nlang']);
  assert.deepEqual(await scopesOf('int main() {', 'main'), ['entity.name.function.nlang']);
  assert.deepEqual(await scopesOf('x += 1.5f;', '+='), ['keyword.operator.assignment.compound.nlang']);
  assert.deepEqual(await scopesOf('x += 1.5f;', '1.5f'), ['constant.numeric.float.nlang']);
  assert.deepEqual(await scopesOf('/* a // b */ int x;', 'b'), ['comment.block.nlang']);
  assert.deepEqual(await scopesOf('string s = "// not a comment";', 'not'), ['string.quoted.double.nlang']);
});

// Scope snapshots: one line per token, "line:col text  scopes".
const snapshotDir = path.join(__dirname, 'snapshots');
const snapshotPrograms = [
  'concurrency/producer.n',
  'lang/lex_interpolation.n',
  'lang/lex_string_escapes.n',
  'lang/lex_comments.n',
  'classes/inheritance.n',
];

/** snapshot renders the scopes of a program, skipping plain whitespace. */
async function snapshot(file) {
  const lines = await tokenize(fs.readFileSync(file, 'utf8'));
  const out = [];
  for (const toks of lines) {
    for (const t of toks) {
      const scopes = t.scopes.filter((s) => s !== 'source.nlang');
      if (scopes.length === 0 && t.text.trim() === '') continue;
      out.push(`${t.line + 1}:${t.start + 1} ${JSON.stringify(t.text)}  ${scopes.join(' ') || '-'}`);
    }
  }
  return out.join('\n') + '\n';
}

for (const rel of snapshotPrograms) {
  test(`scope snapshot of ${rel}`, async () => {
    const got = await snapshot(path.join(testdata, rel));
    const snap = path.join(snapshotDir, rel.replace(/\//g, '__') + '.scopes');
    if (process.env.UPDATE_SNAPSHOTS) {
      fs.mkdirSync(snapshotDir, { recursive: true });
      fs.writeFileSync(snap, got);
    }
    assert.ok(fs.existsSync(snap), `${snap} missing; run UPDATE_SNAPSHOTS=1 npm test and review it`);
    assert.equal(got, fs.readFileSync(snap, 'utf8'), `${rel}: scopes changed; review, then UPDATE_SNAPSHOTS=1 npm test`);
  });
}

module.exports = { lex };
