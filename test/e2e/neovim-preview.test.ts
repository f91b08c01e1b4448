/**
 * The Neovim snippet of docs/LSP_EXTENSIONS.md ("Using the custom requests from another editor"),
 * taken from the document as written and run in headless Neovim 0.7 against the real server: on a
 * query line, `:QuerylensPreview` opens a scratch buffer with the query, its metrics and the ranked
 * documents that `querylens/preview` returns.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../lsp/harness.js';
import { makeWorkspace, type Workspace } from '../lsp/engine/fixture.js';
import { runProcess } from '../support/process.js';

function findNvim(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

const nvim = findNvim();
if (!nvim) console.log('test/e2e/neovim-preview: SKIPPED — nvim is not installed (apt-get install neovim)');

const doc = readFileSync(join(REPO, 'docs/LSP_EXTENSIONS.md'), 'utf8');
const SNIPPET = /<!-- neovim-preview-snippet:start -->\n```lua\n([^]*?)```\n<!-- neovim-preview-snippet:end -->/.exec(doc)?.[1];

/** Starts the server on the fixture, runs the snippet, moves to line `row` and writes the scratch buffer's lines to `out`. */
const DRIVER = `
local root, workspace, fixture, snippet, out = ...
local client_id = vim.lsp.start_client({
  name = 'querylens',
  cmd = { 'node', root .. '/bin/querylens.js', 'lsp', '--stdio' },
  root_dir = workspace,
})
dofile(snippet)
vim.cmd('edit ' .. fixture)
vim.bo.filetype = 'indri'
vim.lsp.buf_attach_client(0, client_id)
-- Until the server has initialised and opened its index the request fails: retry until the scratch buffer opens.
local source = vim.api.nvim_get_current_buf()
local lines = nil
local errors = {}
vim.notify = function(msg) table.insert(errors, msg) end
for _ = 1, 40 do
  vim.api.nvim_set_current_buf(source)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local ok, err = pcall(vim.cmd, 'QuerylensPreview')
  if not ok then table.insert(errors, tostring(err)) end
  if vim.wait(1000, function() return vim.fn.bufnr('querylens preview 1') ~= -1 end, 50) then
    lines = vim.api.nvim_buf_get_lines(vim.fn.bufnr('querylens preview 1'), 0, -1, false)
    break
  end
end
local f = io.open(out, 'w')
f:write(vim.fn.json_encode({ errors = errors, lines = lines, buftype = lines and vim.bo[vim.fn.bufnr('querylens preview 1')].buftype }))
f:close()
vim.lsp.stop_client(client_id)
vim.cmd('qa!')
`;

describe.skipIf(!nvim)('the Neovim preview snippet of docs/LSP_EXTENSIONS.md', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ensureBuilt();
    ws = await makeWorkspace();
  }, 120_000);
  afterAll(() => ws?.dispose());

  it('opens the preview of the query under the cursor in a scratch buffer', async () => {
    expect(SNIPPET, 'the snippet between the neovim-preview-snippet markers').toBeDefined();
    writeFileSync(join(ws.root, 'preview.lua'), SNIPPET!);
    writeFileSync(join(ws.root, 'driver.lua'), DRIVER);
    const fixture = join(ws.root, 'queries.indri');
    writeFileSync(fixture, '1\t#combine( boundary layer flow )\n');
    const out = join(ws.root, 'result.json');
    rmSync(out, { force: true });
    const args = [ws.root, fixture, join(ws.root, 'preview.lua'), out].map((a) => `'${a}'`).join(', ');
    const result = await runProcess(nvim!, ['--headless', '--clean', '-c', `lua loadfile('${join(ws.root, 'driver.lua')}')('${REPO.replace(/\/$/, '')}', ${args})`], {
      timeoutMs: 120_000,
      env: { ...process.env, XDG_CACHE_HOME: join(ws.root, 'cache') },
    });
    expect(existsSync(out), `nvim wrote no result; stderr: ${result.stderr}`).toBe(true);
    const { lines, buftype, errors } = JSON.parse(readFileSync(out, 'utf8'));
    expect(lines, `no preview buffer; errors: ${JSON.stringify(errors).slice(-2000)}`).toBeTruthy();
    expect(buftype).toBe('nofile');
    expect(lines[0]).toBe('qid 1: #combine( boundary layer flow )');
    expect(lines[1]).toMatch(/^nDCG@10 \d\.\d{4}  MAP \d\.\d{4}  P@10 \d\.\d{4}$/);
    // The fixture's ranking (test/lsp/engine/requests.test.ts): d3 first, judged 1; four documents match.
    expect(lines[2]).toMatch(/^ {2}1 {2}d3 +\d+\.\d{4} {2}rel 1 +Boundary layer transition$/);
    expect(lines.slice(2)).toHaveLength(4);
    expect(lines.some((l: string) => /unjudged/.test(l))).toBe(true);
  }, 150_000);
});
