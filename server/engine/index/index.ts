/** The index: contract (reader.ts), in-memory build (memory.ts), on-disk build and open (disk.ts). */
export type { CollectionStats, Extent, IndexReader, PostingList, StoredDocument, TermStats } from './reader.js';
export { buildMemoryIndex, buildMemoryIndexAsync, type MemoryIndexOptions } from './memory.js';
export {
  buildIndex,
  openIndex,
  IndexError,
  FORMAT_VERSION,
  INDEX_FILES,
  type BuildIndexOptions,
  type BuildProgress,
  type BuildSummary,
} from './disk.js';
export { DuplicateDocnoError } from './accumulator.js';
