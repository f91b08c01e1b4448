import type { Command } from 'commander';
import { registerExportTraining } from './export-training.js';
import { registerWeigh } from './weigh.js';
import { registerEvalModel } from './eval-model.js';
import { registerLsp } from './lsp.js';
import { registerCheck } from './check.js';
import { registerConvert } from './convert.js';
import { registerFormat } from './format.js';
import { registerIndex } from './index-cmd.js';
import { registerVerifyIndex } from './verify-index.js';
import { registerCiff } from './ciff.js';
import { registerEval } from './eval.js';
import { registerCompare } from './compare.js';
import { registerExpand } from './expand.js';
import { registerSearch } from './search.js';
import { registerExplain } from './explain.js';
import { registerSweep } from './sweep.js';
import { registerBrowse } from './browse.js';

/** Registers every subcommand. One import and one call per command module. */
export function registerCommands(program: Command): void {
  void program;
  registerLsp(program);
  registerCheck(program);
  registerConvert(program);
  registerFormat(program);
  registerIndex(program);
  registerVerifyIndex(program);
  registerCiff(program);
  registerEval(program);
  registerCompare(program);
  registerExpand(program);
  registerSearch(program);
  registerExplain(program);
  registerSweep(program);
  registerBrowse(program);
  registerExportTraining(program);
  registerWeigh(program);
  registerEvalModel(program);
}
