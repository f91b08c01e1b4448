/**
 * A folder of .txt / .md files, one document each (recursively, in sorted path order;
 * dot-files and dot-folders are skipped). docno = the path relative to the folder, with
 * `/` separators. Title = the first Markdown heading of a .md file, otherwise the first
 * non-blank line; that line is not repeated in `text`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { IngestError, type IngestDocument } from './types.js';

const TEXT_EXTENSIONS = /\.(txt|md|markdown)$/i;

export async function* readFolder(
  folder: string,
  onRead?: (bytes: number) => void,
  /** Only these files (absolute or relative to the cwd), instead of the whole folder. */
  only?: string[],
): AsyncGenerator<IngestDocument | IngestError> {
  for (const file of only ?? (await listFiles(folder))) {
    const bytes = await readFile(file);
    onRead?.(bytes.length);
    let content: string;
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      yield new IngestError(file, 'not valid UTF-8 text');
      continue;
    }
    if (content.charCodeAt(0) === 0xfeff) content = content.slice(1);
    const docno = relative(folder, file).split(sep).join('/');
    yield { docno, fields: splitTitle(content, /\.(md|markdown)$/i.test(file)), source: { file, line: 1 } };
  }
}

/** Every .txt/.md file under `folder`, sorted by relative path. */
export async function listFiles(folder: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && TEXT_EXTENSIONS.test(entry.name)) out.push(path);
    }
  };
  await walk(folder);
  return out;
}

export function splitTitle(content: string, markdown: boolean): Record<string, string> {
  const lines = content.split(/\r?\n/);
  let titleLine = -1;
  let title = '';
  if (markdown) {
    titleLine = lines.findIndex((l) => /^ {0,3}#{1,6}(\s|$)/.test(l));
    if (titleLine >= 0) title = lines[titleLine]!.replace(/^ {0,3}#{1,6}\s*/, '').replace(/\s+#+\s*$/, '').trim();
  }
  if (titleLine < 0) {
    titleLine = lines.findIndex((l) => l.trim() !== '');
    if (titleLine >= 0) title = lines[titleLine]!.trim();
  }
  const text = titleLine < 0 ? content : lines.filter((_, i) => i !== titleLine).join('\n');
  return { title, text: text.trim() };
}
