/**
 * The querylens VS Code extension: starts the bundled language server and adds what only
 * the editor can do — a status bar item for the index/model state, the results panel, the
 * format and convert commands, and the whole-file commands of commands.ts (build the index,
 * compare, weigh every query, export a run). Everything about the queries themselves lives in the
 * server, so other editors get the same features over `querylens lsp --stdio`.
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { registerFileCommands, trackQueryEditors } from './commands';
import { DocumentViews } from './document-view';
import { ResultsPanel, RESULTS_VIEW_TYPE, queryAtCursor } from './results-panel';
import { TryStore } from './try-store';
import { WorkbenchPanels } from './workbench-panels';
import { StatusItem, type ServerStatus } from './status';

/** Same names as server/lsp/server.ts (documented in docs/LSP_EXTENSIONS.md). */
const STATUS_NOTIFICATION = 'querylens/status';
const CONVERT_REQUEST = 'querylens/convert';

interface ConvertResult {
  to: 'indri' | 'lucene';
  text: string;
  approximations: number;
  skipped: number;
}

const LANGUAGES = ['indri', 'lucene'];

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const clientOptions: LanguageClientOptions = {
    // A filter without `scheme` matches every scheme: files, untitled documents and
    // notebook cells alike (a file-only selector is a classic bug of query-language servers).
    documentSelector: LANGUAGES.map((language) => ({ language })),
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/querylens.json') },
    outputChannelName: 'querylens',
    // Restricted mode in an untrusted workspace (docs/ARCHITECTURE.md, "Trust model"): no index, engine, model or file writes.
    initializationOptions: { trusted: vscode.workspace.isTrusted },
  };
  client = new LanguageClient('querylens', 'querylens', serverOptions, clientOptions);

  const status = new StatusItem();
  context.subscriptions.push(status);
  context.subscriptions.push(client.onNotification(STATUS_NOTIFICATION, (s: ServerStatus) => status.update(s)));

  const tries = new TryStore(context.workspaceState);
  const documents = new DocumentViews(client);
  const results = new ResultsPanel(client, tries, documents);
  const workbench = new WorkbenchPanels(client, tries, documents);
  context.subscriptions.push(documents, results, workbench);
  context.subscriptions.push(...trackQueryEditors(), ...registerFileCommands(client, results), ...workbench.commands());
  // After a window reload VS Code hands back the results panel with the state its page saved.
  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state) => {
        await client?.start().catch(() => undefined);
        await results.restore(panel, state);
      },
    }),
  );

  context.subscriptions.push(
    // The result-preview code lens passes [qid, uri]; from the palette, the query under the cursor.
    vscode.commands.registerCommand('querylens.showResults', async (qid?: string, uri?: string) => {
      const editor = vscode.window.activeTextEditor;
      if (!qid || !uri) {
        if (!editor || !LANGUAGES.includes(editor.document.languageId)) {
          void vscode.window.showInformationMessage('querylens: put the cursor on a query to see its results.');
          return;
        }
        uri = editor.document.uri.toString();
        qid = await queryAtCursor(editor);
        if (!qid) {
          void vscode.window.showInformationMessage('querylens: put the cursor on a query to see its results.');
          return;
        }
      }
      await results.show(qid, uri);
    }),
    vscode.commands.registerCommand('querylens.format', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || !LANGUAGES.includes(editor.document.languageId)) {
        void vscode.window.showInformationMessage('querylens: open an Indri or Lucene query file to format it.');
        return;
      }
      await vscode.commands.executeCommand('editor.action.formatDocument');
    }),
    vscode.commands.registerCommand('querylens.convert', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || !LANGUAGES.includes(editor.document.languageId) || !client) {
        void vscode.window.showInformationMessage('querylens: open an Indri or Lucene query file to convert it.');
        return;
      }
      const result = await client.sendRequest<ConvertResult | null>(CONVERT_REQUEST, { uri: editor.document.uri.toString() });
      if (!result) return;
      const doc = await vscode.workspace.openTextDocument({ language: result.to, content: result.text });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
      const notes: string[] = [];
      if (result.approximations) notes.push(`${result.approximations} approximation(s), noted as // comments`);
      if (result.skipped) notes.push(`${result.skipped} query(ies) with errors not converted`);
      if (notes.length) void vscode.window.showWarningMessage(`querylens: converted to ${result.to} with ${notes.join('; ')}.`);
    }),
  );

  // Trust is only ever granted during a session (revoking it reloads the window): restart the
  // server so that it starts with the engine, reading the initialization options afresh.
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      if (!client) return;
      client.clientOptions.initializationOptions = { trusted: true };
      await client.restart();
      void vscode.window.showInformationMessage('querylens: the workspace is trusted now; the index and model are being loaded.');
    }),
  );

  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
