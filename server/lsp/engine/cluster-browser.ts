/**
 * The index browser's requests on a search cluster (`querylens/indexTerms`, `postings`, `document`,
 * `analyze`; workbench-requests.ts): server/service/cluster-browser.ts, shared with the CLI, with the
 * request's parameter checks. What the cluster cannot answer is InvalidRequest with the reason
 * (`data.backend` = 'cluster'); a cluster failure is the request's error with its one line and code
 * (cluster-features.ts clusterFailure).
 */
import { ErrorCodes, ResponseError } from 'vscode-languageserver';
import * as shared from '../../service/cluster-browser.js';
import { clusterFailure } from './cluster-features.js';
import type { ClusterSession } from './cluster-session.js';
import type { AnalyzeResult, DocumentResult, IndexTermsResult } from './workbench-protocol.js';

async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof shared.ClusterRefusal) throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${err.message}`, { backend: 'cluster' });
    clusterFailure(err);
  }
}

export async function clusterIndexTerms(session: ClusterSession, top: number, prefix: string | undefined): Promise<IndexTermsResult> {
  if (!Number.isInteger(top) || top < 1 || top > 10_000) throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: top must be an integer in 1..10000');
  return answer(() => shared.clusterIndexTerms(session, top, prefix));
}

export async function clusterPostings(session: ClusterSession, word: string): Promise<never> {
  return answer(() => shared.clusterPostings(session, word));
}

export async function clusterDocument(session: ClusterSession, docno: string, maxTerms: number): Promise<DocumentResult> {
  if (!Number.isInteger(maxTerms) || maxTerms < 0 || maxTerms > 100_000) throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: maxTerms must be an integer in 0..100000');
  return answer(() => shared.clusterDocument(session, docno, maxTerms));
}

export async function clusterAnalyze(session: ClusterSession, text: string): Promise<AnalyzeResult> {
  return answer(() => shared.clusterAnalyze(session, text));
}
