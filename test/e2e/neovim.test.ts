/**
 * Smoke test with a second, real LSP client: headless Neovim 0.7 starts
 * `node bin/querylens.js lsp --stdio` with vim.lsp.start_client (0.7 has no vim.lsp.start),
 * opens a file with a broken query and must receive its diagnostic, then a hover.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../lsp/harness.js';
import { runProcess } from '../support/process.js';

function findNvim(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

const nvim = findNvim();
if (!nvim) console.log('test/e2e/neovim: SKIPPED — nvim is not installed (apt-get install neovim)');

const LUA = `
local root, fixture, out = ...
local got = nil
local client_id = vim.lsp.start_client({
  name = 'querylens',
  cmd = { 'node', root .. '/bin/querylens.js', 'lsp', '--stdio' },
  -- The fixture's folder, not the repository: the repository's querylens.json would build the sample index.
  root_dir = vim.fn.fnamemodify(fixture, ':h'),
  handlers = {
    ['textDocument/publishDiagnostics'] = function(_, result)
      if result and #result.diagnostics > 0 then got = result end
    end,
  },
})
vim.cmd('edit ' .. fixture)
vim.bo.filetype = 'indri'
vim.lsp.buf_attach_client(0, client_id)
local ok = vim.wait(45000, function() return got ~= nil end, 50)
local hover = nil
if ok then
  local params = { textDocument = { uri = vim.uri_from_fname(fixture) }, position = { line = 0, character = 3 } }
  local responses = vim.lsp.buf_request_sync(0, 'textDocument/hover', params, 10000)
  for _, r in pairs(responses or {}) do if r.result then hover = r.result end end
end
local f = io.open(out, 'w')
f:write(vim.fn.json_encode({ diagnostics = got, hover = hover }))
f:close()
vim.lsp.stop_client(client_id)
vim.cmd('qa!')
`;

describe.skipIf(!nvim)('Neovim 0.7 as LSP client', () => {
  beforeAll(() => ensureBuilt());

  it('receives diagnostics for a broken query and a hover for an operator', async () => {
    const dir = join(REPO, 'test-output/e2e-nvim');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const fixture = join(dir, 'broken.indri');
    writeFileSync(fixture, '1\t#combine( white house\n');
    const script = join(dir, 'client.lua');
    writeFileSync(script, LUA);
    const out = join(dir, 'result.json');
    const started = Date.now();
    const result = await runProcess(nvim!, ['--headless', '--clean', '-c', `lua loadfile('${script}')('${REPO.replace(/\/$/, '')}', '${fixture}', '${out}')`], {
      timeoutMs: 90_000,
      // Neovim writes the server's stderr to $XDG_CACHE_HOME/nvim/lsp.log: keep it with the test output.
      env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') },
    });
    console.log(`neovim LSP round trip: ${Date.now() - started} ms`);
    expect(existsSync(out), `nvim wrote no result; stderr: ${result.stderr}`).toBe(true);
    const { diagnostics, hover } = JSON.parse(readFileSync(out, 'utf8'));
    const lspLog = join(dir, 'cache/nvim/lsp.log');
    expect(diagnostics, `diagnostics published to Neovim; lsp.log:\n${existsSync(lspLog) ? readFileSync(lspLog, 'utf8').slice(-3000) : '(none)'}`).toBeTruthy();
    expect(diagnostics.diagnostics[0].code).toBe('syntax/missing-close');
    expect(diagnostics.diagnostics[0].range.start).toEqual({ line: 0, character: 2 });
    expect(hover.contents.value).toMatch(/\*\*#combine\*\*/);
  });
});
