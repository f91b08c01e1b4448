/**
 * Documents of the index opened read-only in an editor (`querylens-doc:` virtual documents, from
 * `querylens/document`), with the query's matched words highlighted. Nothing is written anywhere.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { documentText, wordRanges, type DocumentResult } from './document-text';

const DOCUMENT_REQUEST = 'querylens/document';
export const DOCUMENT_SCHEME = 'querylens-doc';

export class DocumentViews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly decoration = vscode.window.createTextEditorDecorationType({ backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground') });
  private readonly registration: vscode.Disposable;

  constructor(private readonly client: LanguageClient) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DOCUMENT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const docno = new URLSearchParams(uri.query).get('docno') ?? '';
    try {
      return documentText(await this.client.sendRequest<DocumentResult>(DOCUMENT_REQUEST, { docno, maxTerms: 1 }));
    } catch (err) {
      return `querylens: cannot show document ${docno}: ${(err instanceof Error ? err.message : String(err)).replace(/^querylens: /, '')}`;
    }
  }

  /** Opens `docno` beside the panel, its occurrences of `words` highlighted. */
  async open(docno: string, words: readonly string[]): Promise<void> {
    const uri = vscode.Uri.from({ scheme: DOCUMENT_SCHEME, path: `/${docno.replace(/[/\\]/g, '_')}.txt`, query: new URLSearchParams({ docno }).toString() });
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Active, preview: true });
    const text = doc.getText();
    editor.setDecorations(
      this.decoration,
      wordRanges(text, words).map(([s, e]) => new vscode.Range(doc.positionAt(s), doc.positionAt(e))),
    );
  }

  dispose(): void {
    this.registration.dispose();
    this.decoration.dispose();
  }
}
