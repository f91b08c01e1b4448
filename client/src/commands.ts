/**
 * The whole-file commands of the extension (issue 4 §2): Build Index from the Corpus, Compare,
 * Apply Weights to Every Query in the File, Export Run File. The server does the work (custom
 * requests of docs/LSP_EXTENSIONS.md), so every LSP client can offer the same; this module only
 * asks, shows progress, applies edits, writes the file and reports.
 */
import * as vscode from 'vscode';
import { WorkDoneProgress, type LanguageClient, type WorkDoneProgressBegin, type WorkDoneProgressReport } from 'vscode-languageclient/node';
import { buildSummary, defaultRunPath, runSummary, runTag, weighSummary, type BuildIndexResult, type RunFileResult, type WeighFileResult } from './command-text';
import { queryAtCursor, type ResultsPanel } from './results-panel';
import { chooseQueryEditor, isQueryEditor } from './query-editors';

/** Same names as server/lsp/engine/protocol.ts. */
const BUILD_INDEX_REQUEST = 'querylens/buildIndex';
const RUN_FILE_REQUEST = 'querylens/runFile';
const WEIGH_FILE_REQUEST = 'querylens/weighFile';

let lastQueryEditor: vscode.TextEditor | undefined;

/**
 * Remembers the query editor last active, and keeps the context key `querylens.queryFileVisible`
 * (the menus' `when`) true while one is visible: a panel holding the focus hides no command.
 */
export function trackQueryEditors(): vscode.Disposable[] {
  const update = () => {
    if (isQueryEditor(vscode.window.activeTextEditor)) lastQueryEditor = vscode.window.activeTextEditor;
    void vscode.commands.executeCommand('setContext', 'querylens.queryFileVisible', vscode.window.visibleTextEditors.some(isQueryEditor));
  };
  update();
  return [vscode.window.onDidChangeActiveTextEditor(update), vscode.window.onDidChangeVisibleTextEditors(update)];
}

/** The Indri/Lucene editor a command acts on (query-editors.ts), or undefined after telling the user to open one (every file command asks this). */
export function queryEditor(what: string): vscode.TextEditor | undefined {
  const editor = chooseQueryEditor(vscode.window.activeTextEditor, vscode.window.visibleTextEditors, lastQueryEditor);
  if (editor) return editor;
  void vscode.window.showInformationMessage(`querylens: open an Indri or Lucene query file to ${what}.`);
  return undefined;
}

/**
 * JSON-RPC MethodNotFound: older servers registered the engine's requests only once their first
 * configuration had finished. This server registers them at start-up and answers "the index is
 * being built …" itself (or joins the running build), so this is only a fallback.
 */
const METHOD_NOT_FOUND = -32601;

function messageOf(err: unknown): string {
  if ((err as { code?: unknown } | null)?.code === METHOD_NOT_FOUND) {
    return 'the language server is still loading (or building) the index; try again when the status bar shows it.';
  }
  return (err instanceof Error ? err.message : String(err)).replace(/^querylens: /, '');
}

let buildCounter = 0;

/** querylens/buildIndex under a cancellable notification fed by the server's work-done progress on our token. */
async function buildIndex(client: LanguageClient): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'querylens: building the index', cancellable: true },
    async (progress, cancel) => {
      const token = `querylens-build-${process.pid}-${++buildCounter}`;
      let done = 0;
      const subscription = client.onProgress(WorkDoneProgress.type, token, (value) => {
        if (value.kind === 'begin') progress.report({ message: (value as WorkDoneProgressBegin).title.replace(/^querylens: /, '') });
        else if (value.kind === 'report') {
          const { percentage, message } = value as WorkDoneProgressReport;
          // VS Code adds increments; the server reports totals.
          const increment = percentage !== undefined ? Math.max(0, percentage - done) : undefined;
          if (percentage !== undefined) done = Math.max(done, percentage);
          progress.report({ message, increment });
        }
      });
      try {
        const result = await client.sendRequest<BuildIndexResult>(BUILD_INDEX_REQUEST, { workDoneToken: token }, cancel);
        void vscode.window.showInformationMessage(buildSummary(result));
      } catch (err) {
        if (cancel.isCancellationRequested) void vscode.window.showInformationMessage(`querylens: ${messageOf(err)}`);
        else {
          const choice = await vscode.window.showErrorMessage(`querylens: ${messageOf(err)}`, 'Open Settings');
          if (choice) await vscode.commands.executeCommand('workbench.action.openSettings', 'querylens');
        }
      } finally {
        subscription.dispose();
      }
    },
  );
}

async function applyWeightsToFile(client: LanguageClient): Promise<void> {
  const editor = queryEditor('weigh its queries');
  if (!editor) return;
  const { document } = editor;
  const version = document.version;
  let result: WeighFileResult;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'querylens: weighing queries' }, () =>
      client.sendRequest<WeighFileResult>(WEIGH_FILE_REQUEST, { uri: document.uri.toString(), version }),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`querylens: ${messageOf(err)}`);
    return;
  }
  // The edit's ranges describe the version the server weighed: typing meanwhile would misplace them.
  if (document.version !== version) {
    void vscode.window.showWarningMessage('querylens: the file changed while the weights were computed; run the command again.');
    return;
  }
  if (result.weighed.length) {
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(result.edit);
    if (!(await vscode.workspace.applyEdit(edit))) {
      void vscode.window.showWarningMessage('querylens: the file changed while the weights were computed; run the command again.');
      return;
    }
  }
  const text = weighSummary(result);
  if (result.notWeighed.length || !result.weighed.length) void vscode.window.showWarningMessage(text);
  else void vscode.window.showInformationMessage(text);
}

async function exportRun(client: LanguageClient): Promise<void> {
  const editor = queryEditor('export its run');
  if (!editor) return;
  const { document } = editor;
  const folder = vscode.workspace.getWorkspaceFolder(document.uri) ?? vscode.workspace.workspaceFolders?.[0];
  const base =
    document.uri.scheme === 'file' ? document.uri : vscode.Uri.joinPath(folder?.uri ?? vscode.Uri.file(process.cwd()), document.uri.path.split('/').pop() || 'queries');
  let result: RunFileResult;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'querylens: ranking every query' }, () =>
      client.sendRequest<RunFileResult>(RUN_FILE_REQUEST, { uri: document.uri.toString(), version: document.version, tag: runTag(base.path) }),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`querylens: ${messageOf(err)}`);
    return;
  }
  const target = await vscode.window.showSaveDialog({
    defaultUri: base.with({ path: defaultRunPath(base.path) }),
    filters: { 'TREC run': ['run', 'txt'], 'All files': ['*'] },
    title: 'querylens: export the run file',
  });
  if (!target) return;
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(result.text));
  const choice = await vscode.window.showInformationMessage(runSummary(result, target.path), 'Open');
  if (choice) await vscode.window.showTextDocument(target);
}

async function compare(results: ResultsPanel): Promise<void> {
  const editor = queryEditor('compare a query');
  if (!editor) return;
  const qid = await queryAtCursor(editor);
  if (!qid) {
    void vscode.window.showInformationMessage('querylens: put the cursor on a query to compare its results.');
    return;
  }
  await results.compare(qid, editor.document.uri.toString());
}

export function registerFileCommands(client: LanguageClient, results: ResultsPanel): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('querylens.buildIndex', () => buildIndex(client)),
    vscode.commands.registerCommand('querylens.compare', () => compare(results)),
    vscode.commands.registerCommand('querylens.applyWeightsToFile', () => applyWeightsToFile(client)),
    vscode.commands.registerCommand('querylens.exportRun', () => exportRun(client)),
  ];
}
