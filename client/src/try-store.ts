/** The tries (history.ts) kept in the extension's workspace state: per workspace, never in the user's files. */
import type * as vscode from 'vscode';
import { addTry, type Try } from './history';

const KEY = 'querylens.tries';

export class TryStore {
  constructor(private readonly memento: vscode.Memento) {}

  all(): Try[] {
    const value = this.memento.get<unknown>(KEY);
    return Array.isArray(value) ? (value as Try[]) : [];
  }

  async add(next: Try): Promise<void> {
    await this.memento.update(KEY, addTry(this.all(), next));
  }
}
