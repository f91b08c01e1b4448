/**
 * The workbench panels beside the results panel: the scoreboard (`querylens.scoreboard`: every query
 * of the file ranked with `querylens/runFile`, recorded as a try, compared with earlier tries through
 * `querylens/compareTries`: two at a time, or several ticked tries against a baseline), the parameter sweep (`querylens.sweep`: `querylens/sweep`, the best
 * setting applied through its `configEdit`) and the index browser (`querylens.indexBrowser`:
 * `querylens/indexTerms`, `postings`, `document`, `analyze`). The server computes; these render.
 */
import * as vscode from 'vscode';
import type { LanguageClient, WorkspaceEdit as LspWorkspaceEdit } from 'vscode-languageclient/node';
import type { DocumentViews } from './document-view';
import { fileTries, nextSort, pickBaseline, prunePick, scoreboard, settingsLabel, toggleTick, type FileTry, type QueryTry, type TryPick } from './history';
import { parsePanelMessage, type PanelMessage } from './panel-messages';
import { queryEditor } from './commands';
import { errorText, nonce } from './results-panel';
import type { TryStore } from './try-store';
import { parseSweepGrid, renderBrowser, renderScoreboard, renderSweep, settingText, type BrowserContent, type CompareTriesResult, type CompareTryListResult, type SweepResult, type TryListView } from './workbench-html';

const RUN_FILE_REQUEST = 'querylens/runFile';
const COMPARE_TRIES_REQUEST = 'querylens/compareTries';
const SWEEP_REQUEST = 'querylens/sweep';
const INDEX_TERMS_REQUEST = 'querylens/indexTerms';
const POSTINGS_REQUEST = 'querylens/postings';
const DOCUMENT_REQUEST = 'querylens/document';
const ANALYZE_REQUEST = 'querylens/analyze';

interface RunFileAnswer {
  metrics: { mean: Record<string, number>; perQuery: Record<string, Record<string, number>>; judged: number } | null;
  scorer: { name: string; k1: number; b: number; mu: number };
  /** The scorers that can rank the index (servers before this field: absent). */
  scorers?: string[];
  expansion: { method: string; fbDocs: number; fbTerms: number } | null;
  skipped: { qid: string; reason: string }[];
}


/** One webview panel of a kind, created on first use, its messages checked by parsePanelMessage. */
class Panel {
  private panel: vscode.WebviewPanel | undefined;
  constructor(
    private readonly viewType: string,
    private readonly onMessage: (m: PanelMessage) => Promise<void>,
  ) {}

  show(title: string, html: string): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(this.viewType, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [] });
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((raw) => {
        const m = parsePanelMessage(raw);
        if (m) void this.onMessage(m);
      });
    }
    this.panel.title = title;
    this.panel.webview.html = html;
    this.panel.reveal(undefined, true);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

export class WorkbenchPanels implements vscode.Disposable {
  private readonly scoreboardPanel = new Panel('querylens.scoreboard', (m) => this.onScoreboardMessage(m));
  private readonly sweepPanel = new Panel('querylens.sweep', (m) => this.onSweepMessage(m));
  private readonly browserPanel = new Panel('querylens.indexBrowser', (m) => this.onBrowserMessage(m));
  private scoreboardUri: string | null = null;
  private sort = { column: 'qid', descending: false };
  private pick: TryPick = { ticked: [], baseline: null };
  /** "Compare scorers": what the index can be ranked with (from the last runFile) and what is ticked, in ticking order. */
  private scorers: { available: string[]; ticked: string[] } = { available: [], ticked: [] };
  private lastSweep: { result: SweepResult; file: string; grid: string } | null = null;
  private lastGrid = 'k1=0.6,0.9,1.2,1.5 b=0.3,0.5,0.75';
  private browserInputs: Record<string, string> = {};

  constructor(
    private readonly client: LanguageClient,
    private readonly tries: TryStore,
    private readonly documents: DocumentViews,
  ) {}

  commands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('querylens.scoreboard', () => this.runScoreboard()),
      vscode.commands.registerCommand('querylens.sweep', () => this.runSweep()),
      vscode.commands.registerCommand('querylens.indexBrowser', () => this.browserPanel.show('Index browser', renderBrowser({}, nonce(), this.browserInputs))),
    ];
  }

  // ── scoreboard ──

  private async runScoreboard(): Promise<void> {
    const editor = queryEditor('score its queries');
    if (!editor) return;
    const uri = editor.document.uri.toString();
    if (uri !== this.scoreboardUri) {
      this.pick = { ticked: [], baseline: null };
      this.scorers = { available: [], ticked: [] };
    }
    this.scoreboardUri = uri;
    let notice: string | null = null;
    try {
      const run = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'querylens: ranking every query' }, () =>
        this.client.sendRequest<RunFileAnswer>(RUN_FILE_REQUEST, { uri, version: editor.document.version, k: 1000 }),
      );
      this.scorers = { available: run.scorers ?? [], ticked: this.scorers.ticked.length ? this.scorers.ticked : [run.scorer.name] };
      notice = (await this.recordRun(uri, run)).notice;
    } catch (err) {
      notice = `Cannot rank the file: ${errorText(err)}`;
    }
    this.renderScoreboard(notice, null);
  }

  /** Records a file run as a try; its id (the latest try's when the run repeats it), or why there is none. */
  private async recordRun(uri: string, run: RunFileAnswer): Promise<{ id: string | null; notice: string | null }> {
    if (!run.metrics) return { id: null, notice: 'No query of this file is judged by the qrels (or no qrels are configured): nothing to score.' };
    await this.tries.add({
      kind: 'file',
      id: `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      at: new Date().toISOString(),
      uri,
      settings: settingsLabel(run.scorer, run.expansion),
      mean: run.metrics.mean,
      perQuery: run.metrics.perQuery,
    });
    const latest = fileTries(this.tries.all(), uri).at(-1);
    return { id: latest?.id ?? null, notice: run.skipped.length ? `Not ranked: ${run.skipped.map((s) => `${s.qid} (${s.reason})`).join(', ')}.` : null };
  }

  /** Every query of the file ranked under each scorer, each run a try, the tries compared against the first. */
  private async compareScorers(scorers: string[]): Promise<void> {
    const uri = this.scoreboardUri;
    if (!uri) return;
    if (scorers.length < 2) return this.renderScoreboard('Tick two or more of the scorers listed.', null);
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    if (!document) return this.renderScoreboard('Open the query file again to rank it with other scorers.', null);
    const ids: string[] = [];
    try {
      for (const scorer of scorers) {
        const run = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `querylens: ranking every query with ${scorer}` }, () =>
          this.client.sendRequest<RunFileAnswer>(RUN_FILE_REQUEST, { uri, version: document.version, k: 1000, scorer }),
        );
        const recorded = await this.recordRun(uri, run);
        if (!recorded.id) return this.renderScoreboard(recorded.notice, null);
        ids.push(recorded.id);
      }
    } catch (err) {
      return this.renderScoreboard(`Cannot rank the file with every ticked scorer: ${errorText(err)}`, null);
    }
    const all = fileTries(this.tries.all(), uri);
    const chosen = ids.map((id) => all.find((t) => t.id === id)).filter((t): t is FileTry => t !== undefined);
    // Two scorers that rank alike give one try (a repeated run is not a new try): nothing to set side by side.
    if (new Set(ids).size < 2 || chosen.length !== ids.length) return this.renderScoreboard('The ticked scorers gave the same results: nothing to compare.', null);
    this.pick = { ticked: [...new Set(ids)], baseline: ids[0]! };
    try {
      const result = await this.client.sendRequest<CompareTryListResult>(COMPARE_TRIES_REQUEST, {
        tries: chosen.map((t) => t.perQuery),
        baselineIndex: 0,
        measures: Object.keys(chosen[0]!.mean),
      });
      this.renderScoreboard(null, null, { tries: chosen, result });
    } catch (err) {
      this.renderScoreboard(`Cannot compare the scorers' tries: ${errorText(err)}`, null);
    }
  }

  private renderScoreboard(notice: string | null, comparison: Parameters<typeof renderScoreboard>[0]['comparison'], listComparison: TryListView | null = null): void {
    const uri = this.scoreboardUri;
    if (!uri) return;
    const all = this.tries.all();
    const tries = fileTries(all, uri);
    this.pick = prunePick(this.pick, tries);
    const latest = tries[tries.length - 1];
    const board = latest ? scoreboard(latest, tries[tries.length - 2] ?? null, this.sort) : null;
    const queryTries = all.filter((t): t is QueryTry => t.kind === 'query' && t.uri === uri);
    const file = vscode.workspace.asRelativePath(vscode.Uri.parse(uri));
    this.scoreboardPanel.show(`Scoreboard: ${file}`, renderScoreboard({ nonce: nonce(), file, board, tries, queryTries, comparison, pick: this.pick, listComparison, scorers: this.scorers, notice }));
  }

  private async onScoreboardMessage(m: PanelMessage): Promise<void> {
    if (m.type === 'sort') {
      this.sort = nextSort(this.sort, m.column);
      return this.renderScoreboard(null, null);
    }
    if (m.type === 'tickScorer') {
      const { ticked } = this.scorers;
      this.scorers = { ...this.scorers, ticked: ticked.includes(m.name) ? ticked.filter((n) => n !== m.name) : [...ticked, m.name] };
      return this.renderScoreboard(null, null);
    }
    if (m.type === 'compareScorers') return this.compareScorers(m.scorers.filter((name) => this.scorers.available.includes(name)));
    if (m.type === 'tickTry' || m.type === 'baselineTry') {
      this.pick = m.type === 'tickTry' ? toggleTick(this.pick, m.id) : pickBaseline(this.pick, m.id);
      return this.renderScoreboard(null, null);
    }
    if (m.type === 'compareTryList' && this.scoreboardUri) {
      const all = fileTries(this.tries.all(), this.scoreboardUri);
      const chosen = all.filter((t) => m.ids.includes(t.id));
      const baselineIndex = chosen.findIndex((t) => t.id === m.baseline);
      if (chosen.length < 2 || baselineIndex < 0) return this.renderScoreboard('Those tries are no longer kept: tick two or more of the tries listed.', null);
      try {
        const result = await this.client.sendRequest<CompareTryListResult>(COMPARE_TRIES_REQUEST, {
          tries: chosen.map((t) => t.perQuery),
          baselineIndex,
          measures: Object.keys(chosen[baselineIndex]!.mean),
        });
        this.renderScoreboard(null, null, { tries: chosen, result });
      } catch (err) {
        this.renderScoreboard(`Cannot compare the tries: ${errorText(err)}`, null);
      }
      return;
    }
    if (m.type !== 'compareTries' || !this.scoreboardUri) return;
    const tries = fileTries(this.tries.all(), this.scoreboardUri);
    const baseline = tries.find((t) => t.id === m.baseline);
    const treatment = tries.find((t) => t.id === m.treatment);
    if (!baseline || !treatment) return;
    try {
      const result = await this.client.sendRequest<CompareTriesResult>(COMPARE_TRIES_REQUEST, { baseline: baseline.perQuery, treatment: treatment.perQuery, measures: Object.keys(treatment.mean) });
      this.renderScoreboard(null, { baseline, treatment, result });
    } catch (err) {
      this.renderScoreboard(`Cannot compare the tries: ${errorText(err)}`, null);
    }
  }

  // ── sweep ──

  private async runSweep(): Promise<void> {
    const editor = queryEditor('sweep parameters over its queries');
    if (!editor) return;
    const grid = await vscode.window.showInputBox({
      title: 'querylens: parameter sweep',
      prompt: 'Values per parameter: k1, b (BM25), mu (QL), fbDocs, fbTerms (Bo1)',
      value: this.lastGrid,
      validateInput: (text) => {
        const parsed = parseSweepGrid(text);
        return 'error' in parsed ? parsed.error : null;
      },
    });
    if (grid === undefined) return;
    const parsed = parseSweepGrid(grid);
    if ('error' in parsed) return;
    this.lastGrid = grid;
    const file = vscode.workspace.asRelativePath(editor.document.uri);
    try {
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'querylens: sweeping', cancellable: true }, (_, cancel) =>
        this.client.sendRequest<SweepResult>(SWEEP_REQUEST, { uri: editor.document.uri.toString(), version: editor.document.version, ...parsed.grid }, cancel),
      );
      this.lastSweep = { result, file, grid };
      this.sweepPanel.show(`Sweep: ${file}`, renderSweep(result, nonce(), file, grid, null));
    } catch (err) {
      void vscode.window.showErrorMessage(`querylens: the sweep failed: ${errorText(err)}`);
    }
  }

  private async onSweepMessage(m: PanelMessage): Promise<void> {
    const sweep = this.lastSweep;
    if (m.type !== 'applySweep' || !sweep?.result.configEdit) return;
    const best = sweep.result.rows[sweep.result.best]!;
    let notice: string;
    // The server's edit changes only the values of the setting (config-edit.ts); it is applied and saved.
    const edit = await this.client.protocol2CodeConverter.asWorkspaceEdit(sweep.result.configEdit as LspWorkspaceEdit);
    if (edit && (await vscode.workspace.applyEdit(edit))) {
      await Promise.all(edit.entries().map(async ([uri]) => (await vscode.workspace.openTextDocument(uri)).save()));
      notice = `querylens.json now sets ${settingText(best.setting)}.`;
    } else notice = 'querylens.json could not be edited (it changed meanwhile?); run the sweep again.';
    this.sweepPanel.show(`Sweep: ${sweep.file}`, renderSweep(sweep.result, nonce(), sweep.file, sweep.grid, notice));
  }

  // ── index browser ──

  private async onBrowserMessage(m: PanelMessage): Promise<void> {
    if (m.type === 'open') return this.documents.open(m.docno, []);
    if (m.type !== 'browse') return;
    this.browserInputs = { ...this.browserInputs, [m.view]: m.text };
    const content: BrowserContent = {};
    try {
      if (m.view === 'terms') content.terms = await this.client.sendRequest(INDEX_TERMS_REQUEST, { top: 50, ...(m.text.trim() ? { prefix: m.text.trim() } : {}) });
      else if (m.view === 'postings') content.postings = await this.client.sendRequest(POSTINGS_REQUEST, { term: m.text.trim(), maxDocs: 50 });
      else if (m.view === 'document') content.document = await this.client.sendRequest(DOCUMENT_REQUEST, { docno: m.text.trim(), maxTerms: 50 });
      else content.analyze = await this.client.sendRequest(ANALYZE_REQUEST, { text: m.text });
    } catch (err) {
      content.error = errorText(err);
    }
    this.browserPanel.show('Index browser', renderBrowser(content, nonce(), this.browserInputs));
  }

  dispose(): void {
    this.scoreboardPanel.dispose();
    this.sweepPanel.dispose();
    this.browserPanel.dispose();
  }
}

export type { FileTry };
