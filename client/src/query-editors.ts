/**
 * Which query file a whole-file command acts on. A webview panel beside the editor (the results
 * panel restored after a reload, the scoreboard) takes the focus, and then no text editor is active;
 * the commands then act on the query file the user last worked in, if it is still visible, or on the
 * only visible one. Pure: the extension passes VS Code's editors in.
 */

export const QUERY_LANGUAGES: readonly string[] = ['indri', 'lucene'];

export interface EditorLike {
  document: { languageId: string };
}

export const isQueryEditor = (editor: EditorLike | undefined): boolean => editor !== undefined && QUERY_LANGUAGES.includes(editor.document.languageId);

/**
 * The active editor when it holds a query file; else the last active query editor while it is
 * visible; else the one visible query editor; else undefined (none, or several and none was last).
 */
export function chooseQueryEditor<E extends EditorLike>(active: E | undefined, visible: readonly E[], lastActive: E | undefined): E | undefined {
  if (active && isQueryEditor(active)) return active;
  if (lastActive && visible.includes(lastActive) && isQueryEditor(lastActive)) return lastActive;
  const queries = visible.filter(isQueryEditor);
  return queries.length === 1 ? queries[0] : undefined;
}
