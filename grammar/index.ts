/**
 * The grammar's public API: parse a query in any dialect, print and format it, read query
 * files, and translate between dialects. Everything outside grammar/ imports from here.
 */
export * from './ast.js';
export * from './diagnostics.js';

export { parseIndri } from './indri/index.js';
export { messageInFile } from './indri/messages.js';
export { closestName, editDistance } from './closest.js';
export { parseLucene } from './lucene/index.js';
export { parseText } from './text/index.js';

export { printIndri } from './print/indri.js';
export { printLucene } from './print/lucene.js';
export { printTerrier, terrierTermText, type TerrierPrintResult } from './print/terrier.js';
export { toQueryDsl, withBoost, type DslIntervalsRule, type DslOptions, type DslQuery, type DslResult } from './print/query-dsl.js';

export { formatIndri } from './format/indri.js';
export { formatLucene } from './format/lucene.js';

export { translate, TRANSLATE_TARGETS, type TranslateResult, type TranslateTarget } from './translate.js';

/** Parses one query: `parseQuery(text, 'indri' | 'lucene' | 'text')`. Never throws. */
export { parseQuery, type ParseQueryOptions } from './sources/parse-query.js';

export {
  COMMENT_PREFIX,
  detectFormat,
  entryDiagnosticsInFile,
  isCommentLine,
  lineStarts,
  mapEndToFile,
  mapToFile,
  parseQueryFile,
  parseQuerySafely,
  positionAt,
  QuerySourceError,
  readLineFile,
  readQuerySource,
  sourceDiagnostics,
  type IndriParameters,
  type OffsetMap,
  type QueryEntry,
  type QueryFileOptions,
  type QuerySourceResult,
  type ReadQuerySourceOptions,
  type SourceDiagnostic,
  type SourceFormat,
  type TopicField,
} from './sources/index.js';
