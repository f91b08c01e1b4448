/**
 * The learned surface-form expansion's model as the language server holds it: surface.json + surface.onnx from
 * the folder of the configured "model" (model/artifacts ships both beside TW-BERT), the lexical resources it
 * reads (server/model/surface-resources.ts), and its status line. A folder without one is an explained status,
 * and a model trained 0 steps (what the rotation ships when it chooses not to expand) is said to suggest nothing.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fixedWeightNote, loadSurfaceModel, suggestsNothing } from '../../model/surface-model.js';
import { SurfaceResources } from '../../model/surface-resources.js';
import { prepareLearnedExpansion, type LearnedExpansionTools } from '../../service/surface-expansion.js';
import type { ResolvedConfig } from '../config.js';
import type { ResourceStatus } from '../engine.js';
import type { EngineSession } from './session.js';

export interface LoadedLearnedExpansion {
  tools: LearnedExpansionTools;
  /** Folder and device: the same key reuses the loaded model. */
  key: string;
  /** Resources that could not be loaded (word vectors, WordNet), with their fix. */
  problems: string[];
}

/** The folder of the configured "model" (a folder, or one of its .onnx files), as the weighting model is found. */
function modelFolder(model: string): string {
  return statSync(model).isDirectory() ? model : dirname(model);
}

const FIX = 'Point "model" at a folder that holds surface.json and surface.onnx (model/artifacts), or train one with `/usr/bin/python3 -m model.csurf.train loco` (model/README.md).';

/**
 * Loads the learned-expansion model of the configured model folder; `previous` is kept when the folder and
 * device did not change. The caller releases a previous one that is not returned.
 */
export async function loadLearnedExpansion(
  config: ResolvedConfig,
  previous: LoadedLearnedExpansion | null,
): Promise<{ loaded: LoadedLearnedExpansion | null; status: ResourceStatus }> {
  if (!config.model || !existsSync(config.model)) {
    return {
      loaded: null,
      status: { state: 'not-configured', path: null, message: 'No learned-expansion model: "model" is not set (or not there).', fix: FIX },
    };
  }
  const dir = modelFolder(config.model);
  const key = `${dir}\0${config.device}`;
  if (previous?.key === key) return { loaded: previous, status: learnedStatus(previous, dir) };
  const result = await loadSurfaceModel(dir, { device: config.device });
  if (!result.ok) {
    return { loaded: null, status: { state: result.error.kind === 'missing-model' ? 'missing' : 'error', path: dir, message: result.error.message, fix: FIX } };
  }
  const loaded: LoadedLearnedExpansion = { tools: { model: result.model, resources: new SurfaceResources({ modelDir: dir }) }, key, problems: [] };
  return { loaded, status: learnedStatus(loaded, dir) };
}

/** Reads the resources for the session's index now (a second or so), so the first suggestion does not wait for them. */
export function prepareLearned(loaded: LoadedLearnedExpansion, session: EngineSession): void {
  loaded.problems = prepareLearnedExpansion(session.backend, loaded.tools).map((p) => p.message);
}

export function learnedStatus(loaded: LoadedLearnedExpansion, dir: string): ResourceStatus {
  const { model } = loaded.tools;
  const fixed = fixedWeightNote(model.config);
  const untrained = suggestsNothing(model.config) ? ` ${untrainedNote()}` : fixed ? ` ${fixed}` : '';
  const notices = model.notices.length ? ` ${model.notices.join(' ')}` : '';
  const problems = loaded.problems.length ? ` Note: ${loaded.problems.join('; ')}.` : '';
  return { state: 'ready', path: dir, message: `Learned-expansion model loaded (${model.device}).${untrained}${notices}${problems}` };
}

export function untrainedNote(): string {
  return 'It was trained 0 steps (the leave-one-collection-out rotation chose not to expand, model/MODEL_CARD.md), so it suggests nothing.';
}
