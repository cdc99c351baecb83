'use strict';
// Edit and continue: saving an NLang file while its program is paused in
// a debug session installs the new code in the session (the server's
// custom request nlang/reload, docs/reload.md), as Java's "hot code
// replace" does; "NLang: Reload Changed Code" does it by hand, with the
// editors' unsaved text. A notification says what the reload changed; a
// refusal (a file that does not compile, or a change the running program
// cannot take) says why, with the compiler's report (file:line:col) in
// the "NLang reload" output channel. Frames still running old code show
// in the Call Stack as "f [old code]"; Restart Frame runs them anew on
// the new code.

const REQUEST = 'nlang/reload';

/**
 * summary renders what a reload did (an nlang/reload body) in one line
 * for a notification. Plain data, tested alone.
 */
function summary(body) {
  if (body.unchanged) return 'NLang: nothing to reload (no file of the program changed).';
  const parts = [];
  const list = (what, names) => {
    if (names && names.length > 0) parts.push(`${what} ${names.join(', ')}`);
  };
  list('changed', body.changed);
  list('added', body.added);
  list('removed', body.removed);
  list('new types', body.types);
  if (body.fields && body.fields.length > 0) {
    parts.push(`new fields ${body.fields.join(', ')} (${body.objects || 0} existing objects got them)`);
  }
  if (parts.length === 0) parts.push('no code changed');
  const frames = body.frames || [];
  const old = frames.filter((f) => f.how === 'old').length;
  const moved = frames.filter((f) => f.how === 'moved').length;
  let text = `NLang: reload ${body.reload}: ${parts.join('; ')}.`;
  if (old > 0) text += ` ${old} ${old === 1 ? 'frame finishes' : 'frames finish'} on the old code (Restart Frame runs the new code).`;
  if (moved > 0) text += ` ${moved} ${moved === 1 ? 'frame' : 'frames'} moved to the new code.`;
  const lost = (body.breakpoints || []).filter((b) => !b.verified).length;
  if (lost > 0) text += ` ${lost} ${lost === 1 ? 'breakpoint is' : 'breakpoints are'} no longer placed.`;
  return text;
}

/** nlangSession returns the active debug session if it is an NLang one. */
function nlangSession(vscode) {
  const s = vscode.debug.activeDebugSession;
  return s && s.type === 'nlang' ? s : undefined;
}

/** isRunning tells an error of a reload asked for while the program runs. */
function isRunning(err) {
  return /is running/.test(String(err && err.message ? err.message : err));
}

/**
 * reload sends nlang/reload with args to session and tells the user what
 * it did. quiet: a program that runs is not an error (a save while it
 * runs). It resolves to the response body, or undefined.
 */
async function reload(vscode, session, args, output, quiet) {
  try {
    const body = await session.customRequest(REQUEST, args);
    vscode.window.showInformationMessage(summary(body || {}));
    return body;
  } catch (err) {
    const msg = String(err && err.message ? err.message : err).replace(/^nlang\/reload: /, '');
    if (isRunning(err)) {
      if (!quiet) vscode.window.showErrorMessage('NLang: pause the program to reload its code.');
      else vscode.window.setStatusBarMessage('NLang: the program runs; pause it and save (or NLang: Reload Changed Code) to reload', 5000);
      return undefined;
    }
    output.clear();
    output.appendLine(msg);
    const first = msg.split('\n')[0];
    vscode.window.showErrorMessage(`NLang: not reloaded: ${first}`, 'Show Report').then((pick) => {
      if (pick) output.show(true);
    });
    return undefined;
  }
}

/** register adds the save hook and the command. */
function register(vscode, context) {
  const output = vscode.window.createOutputChannel('NLang reload');
  context.subscriptions.push(
    output,
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc.languageId !== 'nlang') return undefined;
      if (!vscode.workspace.getConfiguration('nlang').get('reload.onSave', true)) return undefined;
      const session = nlangSession(vscode);
      if (!session) return undefined;
      return reload(vscode, session, {}, output, true);
    }),
    vscode.commands.registerCommand('nlang.reload', () => {
      const session = nlangSession(vscode);
      if (!session) {
        vscode.window.showErrorMessage('NLang: no NLang debug session to reload.');
        return undefined;
      }
      const sources = vscode.workspace.textDocuments
        .filter((d) => d.languageId === 'nlang' && d.isDirty)
        .map((d) => ({ path: d.uri.fsPath, content: d.getText() }));
      return reload(vscode, session, sources.length > 0 ? { sources } : {}, output, false);
    }),
  );
}

module.exports = { summary, register, REQUEST };
