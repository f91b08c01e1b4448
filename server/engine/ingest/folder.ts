/**
 * A folder of .txt / .md files, one document each (recursively, in sorted path order;
 * dot-files and dot-folders are skipped). docno = the path relative to the folder, with
 * `/` separators. Title = the first Markdown heading of a .md file, otherwise the first
 * non-blank line; that line is not repeated in `text`.
 *
 * Symbolic links are followed when their target is inside the corpus folder (the document's
 * docno is the link's own path); a link that leads outside the folder, nowhere, or back to a
 * folder that contains it, is reported
 * like a malformed record (skipped and counted with skipBad), never silently dropped: the corpus
 * is exactly what is inside the folder.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { IngestError, type IngestDocument } from './types.js';
import { badDocumentId, countNewlineBytes, decodeUtf8Strict, invalidUtf8Reason } from './utf8.js';

const TEXT_EXTENSIONS = /\.(txt|md|markdown)$/i;

export async function* readFolder(
  folder: string,
  onRead?: (bytes: number) => void,
  /** Only these files (absolute or relative to the cwd), instead of the whole folder. */
  only?: string[],
): AsyncGenerator<IngestDocument | IngestError> {
  for (const item of only ?? (await listFolder(folder))) {
    if (item instanceof IngestError) {
      yield item;
      continue;
    }
    const file = item;
    const bytes = await readFile(file);
    onRead?.(bytes.length);
    const decoded = decodeUtf8Strict(bytes);
    if ('invalidAt' in decoded) {
      yield new IngestError(file, invalidUtf8Reason(bytes, decoded.invalidAt, 'the file'), 1 + countNewlineBytes(bytes, decoded.invalidAt));
      continue;
    }
    let content = decoded.text;
    if (content.charCodeAt(0) === 0xfeff) content = content.slice(1);
    const docno = relative(folder, file).split(sep).join('/');
    const badId = badDocumentId(docno);
    if (badId) {
      yield new IngestError(file, `${badId} (the id of a file is its path in the folder: rename the file)`, 1);
      continue;
    }
    yield { docno, fields: splitTitle(content, /\.(md|markdown)$/i.test(file)), source: { file, line: 1 } };
  }
}

/** Every .txt/.md file (or file named as `extensions` says) under `folder`, sorted by relative path (links inside the folder followed). */
export async function listFiles(folder: string, extensions = TEXT_EXTENSIONS): Promise<string[]> {
  return (await listFolder(folder, extensions)).filter((f): f is string => typeof f === 'string');
}

/** The files of listFiles, with a problem (a link that leads outside or nowhere) in its place. */
export async function listFolder(folder: string, extensions = TEXT_EXTENSIONS): Promise<(string | IngestError)[]> {
  const out: (string | IngestError)[] = [];
  const root = await realpath(folder);
  const inside = (real: string) => real === root || real.startsWith(root + sep);
  /** Real paths of the folders being walked (this one and its parents): a link back to one is a loop. */
  const open = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    const realDir = await realpath(dir);
    open.add(realDir);
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        let real: string;
        let isDir: boolean;
        try {
          real = await realpath(path);
          isDir = (await stat(real)).isDirectory();
        } catch {
          if (extensions.test(entry.name)) out.push(new IngestError(path, 'symbolic link to nothing (its target does not exist): not indexed'));
          continue;
        }
        if (!isDir && !extensions.test(entry.name)) continue;
        if (!inside(real)) {
          out.push(new IngestError(path, `symbolic link to ${real}, outside the corpus folder: not indexed (copy the file into the folder to index it)`));
          continue;
        }
        if (isDir && open.has(real)) out.push(new IngestError(path, 'symbolic link to a folder that contains it (a loop): not followed'));
        else if (isDir) await walk(path);
        else out.push(path);
        continue;
      }
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && extensions.test(entry.name)) out.push(path);
    }
    open.delete(realDir);
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
