/**
 * The results panel behind the result-preview code lens (`querylens.showResults`, arguments
 * `[qid, uri]`, docs/LSP_EXTENSIONS.md): asks the server for `querylens/preview` a page at a time and
 * shows the ranked documents with their snippets, scores and judgements, and the workbench around
 * them: explain a hit or any docno ("why not", `querylens/explain`), judge a hit in place
 * (`querylens/judge`), open a document's stored text, page past the top 10. Each run is recorded as a
 * try (history.ts). The panel comes back after a window reload (webview state + serializer). In
 * compare mode (`querylens.compare`) it shows `querylens/compare`: the original, Bo1 and weighted
 * lists side by side.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { settingsLabel } from './history';
import { PAGE_SIZE, parsePanelMessage, parseResultsState, type PanelMessage, type ResultsState } from './panel-messages';
import { renderCompare, renderResults, type CompareResult, type ExplainResult, type PreviewResult } from './results-html';
import type { DocumentViews } from './document-view';
import { escape, msg, page } from './webview-html';
import type { TryStore } from './try-store';

const PREVIEW_REQUEST = 'querylens/preview';
const COMPARE_REQUEST = 'querylens/compare';
const EXPLAIN_REQUEST = 'querylens/explain';
const JUDGE_REQUEST = 'querylens/judge';
export const RESULTS_VIEW_TYPE = 'querylens.results';

export const nonce = (): string => randomBytes(16).toString('base64');

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).replace(/^querylens: /, '');

interface JudgeResult {
  qrels: string;
  line: number;
  action: 'appended' | 'replaced' | 'unchanged';
  previous: number | null;
}

export class ResultsPanel {
  private panel: vscode.WebviewPanel | undefined;
  private state: ResultsState | null = null;
  private lastPreview: PreviewResult | null = null;

  constructor(
    private readonly client: LanguageClient,
    private readonly tries: TryStore,
    private readonly documents: DocumentViews,
  ) {}

  /** Opens (or refreshes) the panel for query `qid` of document `uri`, at its first page. */
  async show(qid: string, uri: string): Promise<void> {
    this.state = { view: 'results', uri, qid, page: 0, explained: null };
    await this.refresh(null, true);
  }

  /** The serializer's half: a panel VS Code kept over a reload, with the state its page saved. */
  async restore(panel: vscode.WebviewPanel, saved: unknown): Promise<void> {
    this.adopt(panel);
    const state = parseResultsState(saved);
    if (!state) {
      panel.webview.html = '<!DOCTYPE html><html><body><p>Run “querylens: Preview Results” on a query to fill this panel again.</p></body></html>';
      return;
    }
    this.state = state;
    await this.refresh(null, false, true);
  }

  /**
   * The page of `state`. After a reload the server is still opening the index (InvalidRequest with
   * `data.index`) and the editor may not have sent the query file yet: `waitForIndex` asks again
   * for up to a minute, as the user would.
   */
  private async previewPage(state: ResultsState, version: number | undefined, waitForIndex: boolean): Promise<PreviewResult> {
    const deadline = Date.now() + (waitForIndex ? 60_000 : 0);
    for (;;) {
      try {
        return await this.client.sendRequest<PreviewResult>(PREVIEW_REQUEST, { uri: state.uri, qid: state.qid, version, k: PAGE_SIZE, offset: state.page * PAGE_SIZE, explain: false });
      } catch (err) {
        const data = (err as { data?: { index?: unknown } }).data;
        const notReady = data?.index !== undefined || /no index is loaded|is not open/.test(errorText(err));
        if (!notReady || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** Fetches the current page (and the open explanation) and renders it; a failure is shown, never thrown. */
  private async refresh(notice: string | null, record: boolean, waitForIndex = false, focusExplanation = false): Promise<void> {
    const state = this.state;
    if (!state) return;
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === state.uri);
    let result: PreviewResult;
    try {
      result = await this.previewPage(state, document?.version, waitForIndex);
    } catch (err) {
      const why = `no results for query ${state.qid}: ${errorText(err)}`;
      // A restored panel (or one open on a page) keeps its state and offers to try again (the index may still be loading).
      if (this.panel) this.display(`Results: ${state.qid}`, page(`Results: ${state.qid}`, `<p><i>${escape(why)}</i></p><button ${msg({ type: 'page', page: state.page })}>try again</button>`, nonce(), state));
      else void vscode.window.showWarningMessage(`querylens: ${why}`);
      return;
    }
    this.lastPreview = result;
    let explanation: ExplainResult | null = null;
    if (state.explained) {
      try {
        explanation = await this.client.sendRequest<ExplainResult>(EXPLAIN_REQUEST, { uri: state.uri, qid: state.qid, version: document?.version, docno: state.explained });
      } catch (err) {
        notice = `Cannot explain ${state.explained}: ${errorText(err)}`;
        state.explained = null;
      }
    }
    if (record) {
      await this.tries.add({
        kind: 'query',
        id: `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
        at: new Date().toISOString(),
        uri: state.uri,
        qid: result.qid,
        query: result.query,
        settings: settingsLabel(result.scorer),
        metrics: result.metrics,
      });
    }
    this.display(`Results: ${state.qid}`, renderResults(result, { nonce: nonce(), state, explanation, notice, focusExplanation }));
  }

  private async onMessage(raw: unknown): Promise<void> {
    const message = parsePanelMessage(raw);
    const state = this.state;
    if (!message || !state) return;
    await this.handle(message, state);
  }

  private async handle(message: PanelMessage, state: ResultsState): Promise<void> {
    switch (message.type) {
      case 'page':
        state.page = message.page;
        return this.refresh(null, false);
      case 'explain':
        state.explained = message.docno;
        return this.refresh(null, false, false, true);
      case 'closeExplain':
        state.explained = null;
        return this.refresh(null, false);
      case 'open':
        return this.documents.open(message.docno, matchedWords(this.lastPreview));
      case 'judge': {
        const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === state.uri);
        let notice: string;
        try {
          const r = await this.client.sendRequest<JudgeResult>(JUDGE_REQUEST, { uri: state.uri, qid: state.qid, version: document?.version, docno: message.docno, grade: message.grade });
          const where = `${vscode.workspace.asRelativePath(r.qrels)}:${r.line}`;
          notice =
            r.action === 'unchanged'
              ? `${message.docno} was already judged ${message.grade} (${where}).`
              : r.action === 'replaced'
                ? `${message.docno}: grade ${r.previous} → ${message.grade}, written to ${where}.`
                : `${message.docno} judged ${message.grade}, appended to ${where}.`;
        } catch (err) {
          notice = `Not judged: ${errorText(err)}`;
          void vscode.window.showWarningMessage(`querylens: ${notice}`);
        }
        return this.refresh(notice, true);
      }
      default:
        return;
    }
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
      void vscode.window.showWarningMessage(`querylens: cannot compare query ${qid}: ${errorText(err)}`);
      return;
    }
    this.state = null;
    this.display(`Compare: ${qid}`, renderCompare(result));
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.webview.options = { enableScripts: true, localResourceRoots: [] };
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
    panel.webview.onDidReceiveMessage((m) => void this.onMessage(m));
  }

  private display(title: string, html: string): void {
    if (!this.panel) {
      this.adopt(
        vscode.window.createWebviewPanel(RESULTS_VIEW_TYPE, 'querylens results', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [] }),
      );
    }
    this.panel!.title = title;
    this.panel!.webview.html = html;
    this.panel!.reveal(undefined, true);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** The words the preview marked in its snippets: what an opened document highlights. */
function matchedWords(result: PreviewResult | null): string[] {
  const words = new Set<string>();
  for (const h of result?.hits ?? []) for (const [s, e] of h.snippet.highlights) words.add(h.snippet.text.slice(s, e).toLowerCase());
  return [...words];
}

/** The qid of the query under the cursor, from the server's document symbols (one per query). */
export async function queryAtCursor(editor: vscode.TextEditor): Promise<string | undefined> {
  const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', editor.document.uri);
  const line = editor.selection.active.line;
  return symbols?.find((s) => s.range.start.line <= line && line <= s.range.end.line)?.name;
}
