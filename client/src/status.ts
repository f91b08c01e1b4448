/**
 * Status bar item for the engine state the server reports in `querylens/status`: whether
 * an index and a model are configured and present, with the fix in the tooltip. A missing
 * index is shown, never hidden, so "nothing works except highlighting" cannot happen
 * silently.
 */
import * as vscode from 'vscode';

export interface ResourceStatus {
  state: 'not-configured' | 'missing' | 'found' | 'ready' | 'error' | 'loading' | 'untrusted';
  path: string | null;
  message: string;
  fix?: string;
}

export interface ServerStatus {
  index: ResourceStatus;
  model: ResourceStatus;
  provider: string;
  configFile: string | null;
  configProblems: { source: string; message: string }[];
  /** False in restricted mode (an untrusted workspace). */
  trusted?: boolean;
}

const ICONS: Record<ResourceStatus['state'], string> = {
  'not-configured': '$(circle-slash)',
  missing: '$(warning)',
  found: '$(check)',
  ready: '$(pass-filled)',
  error: '$(error)',
  loading: '$(loading~spin)',
  untrusted: '$(shield)',
};

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('querylens.status', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = 'querylens';
    this.item.text = '$(loading~spin) querylens';
    this.item.tooltip = 'querylens: starting the language server';
    // Opens the extension's settings: the place to fix every state this item reports.
    this.item.command = { title: 'Open querylens settings', command: 'workbench.action.openSettings', arguments: ['querylens'] };
    this.item.show();
  }

  update(status: ServerStatus): void {
    this.item.text =
      status.trusted === false ? '$(shield) querylens restricted' : `querylens index ${ICONS[status.index.state] ?? ''} model ${ICONS[status.model.state] ?? ''}`;
    const tooltip = new vscode.MarkdownString();
    for (const [name, r] of [['Index', status.index], ['Model', status.model]] as const) {
      tooltip.appendMarkdown(`**${name}** (${r.state}): ${r.message}\n\n`);
      if (r.fix) tooltip.appendMarkdown(`_Fix:_ ${r.fix}\n\n`);
    }
    if (status.configFile) tooltip.appendMarkdown(`Configuration: \`${status.configFile}\`\n\n`);
    for (const p of status.configProblems) tooltip.appendMarkdown(`$(warning) ${p.source}: ${p.message}\n\n`);
    tooltip.supportThemeIcons = true;
    this.item.tooltip = tooltip;
    const bad = [status.index.state, status.model.state].some((s) => s === 'missing' || s === 'error') || status.configProblems.length > 0;
    this.item.backgroundColor = bad ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
