/**
 * The model's load notices (the CUDA fallback of device "auto") are shown once, in
 * `querylens/status`, and not repeated in every `querylens/compare` (the Compare panel's notes).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareResult } from '../../../server/lsp/engine/protocol.js';
import { freshUri, REPO, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, type Status, type Workspace } from './fixture.js';

const MODEL_DIR = join(REPO, 'model/artifacts');
const haveModel = existsSync(join(MODEL_DIR, 'config.json')) && existsSync(join(MODEL_DIR, 'twbert.onnx'));

describe.skipIf(!haveModel)('model notices', () => {
  let ws: Workspace;
  let client: TestClient;
  let status: Status;
  beforeAll(async () => {
    ws = await makeWorkspace({ config: { index: 'idx', qrels: 'data/qrels.txt', device: 'auto' } });
    ({ client, status } = await startIn(ws.root, { settings: { querylens: { model: MODEL_DIR } } }));
  }, 120_000);
  afterAll(async () => {
    await client?.stop();
    ws?.dispose();
  });

  it('are in the status once, and not in the notes of every comparison', async () => {
    expect(status.model.state).toBe('ready');
    // Where CUDA cannot be used (every machine without the CUDA provider), "auto" falls back with a notice.
    const notice = /CUDA is not available.*?runs on the CPU\./.exec(status.model.message ?? '')?.[0];
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( boundary layer )');
    for (let i = 0; i < 2; i++) {
      const r = await client.request<CompareResult>('querylens/compare', { uri, qid: '1', k: 3 });
      expect(r.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
      // The only note allowed is the learned model's about this query (when it suggests nothing), not a load notice.
      expect(r.notes.filter((n) => !n.startsWith('The learned model suggests nothing for this query: '))).toEqual([]);
    }
    if (notice) expect(status.model.message).toContain(notice);
    else console.log('model-notices: this machine loaded the model without a notice (CUDA available); the fallback case was not exercised');
  }, 60_000);
});
