/**
 * The results panel behind the result-preview code lens (`querylens.showResults`, arguments
 * `[qid, uri]`, docs/LSP_EXTENSIONS.md): asks the server for `querylens/preview` and shows
 * the ranked documents with their snippets, scores and judgements; in compare mode
 * (`querylens.compare`) it shows `querylens/compare`: the original, Bo1 and weighted lists side
 * by side. Static HTML, no scripts.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { renderCompare, renderResults, type CompareResult, type PreviewResult } from './results-html';

const PREVIEW_REQUEST = 'querylens/preview';
const COMPARE_REQUEST = 'querylens/compare';

export class ResultsPanel {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly client: LanguageClient) {}

  /** Opens (or refreshes) the panel for query `qid` of document `uri`. */
  async show(qid: string, uri: string): Promise<void> {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    let result: PreviewResult;
    try {
      result = await this.client.sendRequest<PreviewResult>(PREVIEW_REQUEST, { uri, qid, version: document?.version, k: 10, explain: false });
    } catch (err) {
      void vscode.window.showWarningMessage(`querylens: no results for query ${qid}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.display(`Results: ${qid}`, renderResults(result));
  }

  /** Opens (or refreshes) the panel in compare mode for query `qid` of document `uri`. */
  async compare(qid: string, uri: string): Promise<void> {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    let result: CompareResult;
    try {
      result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `querylens: comparing query ${qid}` }, () =>
        this.client.sendRequest<CompareResult>(COMPARE_REQUEST, { uri, qid, version: document?.version, k: 10 }),
      );
    } catch (err) {
      void vscode.window.showWarningMessage(`querylens: cannot compare query ${qid}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.display(`Compare: ${qid}`, renderCompare(result));
  }

  private display(title: string, html: string): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('querylens.results', 'querylens results', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: false });
      this.panel.onDidDispose(() => (this.panel = undefined));
    }
    this.panel.title = title;
    this.panel.webview.html = html;
    this.panel.reveal(undefined, true);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** The qid of the query under the cursor, from the server's document symbols (one per query). */
export async function queryAtCursor(editor: vscode.TextEditor): Promise<string | undefined> {
  const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', editor.document.uri);
  const line = editor.selection.active.line;
  return symbols?.find((s) => s.range.start.line <= line && line <= s.range.end.line)?.name;
}
