/**
 * The layer between the front ends (server/cli, server/lsp) and the engines: the LocalBackend
 * interface and its local implementation, and the operations both front ends call (search with
 * feedback and weights, explain, expand, weigh, evaluate, compare). It knows no editor and no
 * terminal: it imports grammar/, server/engine and server/model only.
 */
export * from './backend.js';
export * from './snippets.js';
export * from './ranking.js';
export * from './explain.js';
export * from './evaluation.js';
export * from './weigh.js';
export * from './judgements.js';
