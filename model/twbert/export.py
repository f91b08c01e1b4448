"""ONNX export (opset 14; dynamic batch, sequence and n-gram axes) of the trained models, the shared
model/artifacts/config.json, and the PyTorch-side parity fixtures that test/model checks the ONNX
runtime against.

  /usr/bin/python3 -m model.twbert.export --model twbert --checkpoint model/.work/twbert.pt
  /usr/bin/python3 -m model.twbert.export --model deepct --checkpoint model/.work/deepct.pt

Parity fixtures: `npx tsx model/encode-queries.ts > model/.work/parity-inputs-twbert.jsonl` (add
`--unigrams-only` for deepct) writes (the encoder
inputs the Node runtime builds for fixed queries); this script runs PyTorch on them and writes
test/model/fixtures/parity-<model>.json.
"""
from __future__ import annotations

import argparse
import json
import shutil
import warnings
from pathlib import Path

import torch

from .common import ARTIFACTS, MODEL_DIR, RECIPE_PROVENANCE, WORK, pad_batch, read_jsonl, load_own
from .genericity import GENERICITY_BIN, read_bin, record_genericity
from .model import ALL_STAT_NAMES, GENERICITY, DeepCT, Encoder, EncoderConfig, StatsTWBert, TWBert

INPUTS = {"ids": "input_ids", "attentionMask": "attention_mask", "ngramMask": "ngram_mask", "ngramOrder": "ngram_order"}
# The collection-aware model (StatsTWBert) also reads each n-gram's statistics, [B,G,S] in the order of its
# `stat_names` (config.json `statistics.names`).
STATS_INPUT = "ngram_stats"
OUTPUT = "weights"
FIXTURES = MODEL_DIR.parent / "test" / "model" / "fixtures"
MAX_TOKENS = 128


def load_checkpoint(kind: str, path: Path):
    """The model to export, its checkpoint, and (TW-BERT with phase 4) the expansion factor. The factor is not part
    of the graph (the runtime applies it, from config.json), so the model is built without it: the ONNX file is the
    same whether or not phase 4 ran."""
    ck = load_own(path)
    if ck.get("head", {}).get("kind") == "stats":
        # TW-BERT + Bo1: the factor of the expansion words' weights (loco.py chose it), applied by the runtime.
        scale = ck.get("expansionScale")
        return load_stats_checkpoint(ck), ck, (round(float(scale), 4) if scale is not None else None)
    cfg = EncoderConfig(**ck["cfg"])
    head = dict(ck.get("head", {}))
    state = dict(ck["state"])
    expansion_scale = None
    if head.pop("expansion", False):
        expansion_scale = round(float(state.pop("expansion_log_scale").exp()), 4)
    model = TWBert(cfg, **head) if kind == "twbert" else DeepCT(cfg)
    model.load_state_dict(state)
    model.eval()
    if kind == "twbert" and model.prior_on:
        # The genericity prior becomes part of the lexical table: same graph as without it, and the same outputs.
        probe = sample_inputs()
        with torch.no_grad():
            before = model(*probe)
            model.bake_prior()
            after = model(*probe)
        if not torch.allclose(before, after, atol=1e-6):
            raise SystemExit(f"export: folding the genericity prior changed the weights by {float((before - after).abs().max())}")
    return model, ck, expansion_scale


def load_stats_checkpoint(ck):
    """The collection-aware model (loco.py): its head, with the frozen pre-trained encoder it was trained on attached."""
    head = {k: v for k, v in ck["head"].items() if k != "kind"}
    model = StatsTWBert(**head)
    model.load_state_dict(ck["state"])
    enc = load_own(ck["encoder"])
    model.encoder = Encoder(EncoderConfig(**enc["cfg"]))
    model.encoder.load_state_dict({k[len("encoder."):]: v for k, v in enc["state"].items() if k.startswith("encoder.")})
    model.eval()
    return model


def sample_stats(nmask, names):
    g = torch.Generator().manual_seed(3)
    return torch.rand(nmask.shape[0], nmask.shape[1], len(names), generator=g) * 5


def sample_inputs():
    """Two tiny queries (the second padded): the tracing input of the export, and the probe of bake_prior."""
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    att = (ids != 0).long()
    nmask = torch.zeros(2, 3, 4)
    nmask[0, 0, 1] = nmask[0, 1, 2] = 1
    nmask[0, 2, 1:3] = 1
    nmask[1, 0, 1] = 1
    order = torch.tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    return ids, att, nmask, order


def export_onnx(model, out: Path, with_order: bool) -> None:
    ids, att, nmask, order = sample_inputs()
    with_stats = isinstance(model, StatsTWBert)
    # Export with grad enabled: torch 1.13's TransformerEncoderLayer takes a fused "fast path"
    # (aten::_transformer_encoder_layer_fwd, not exportable) only under no_grad in eval mode.
    for param in model.parameters():
        param.requires_grad_(True)
    if True:
        names = [INPUTS["ids"], INPUTS["attentionMask"], INPUTS["ngramMask"]] + ([INPUTS["ngramOrder"]] if with_order else [])
        axes = {
            INPUTS["ids"]: {0: "batch", 1: "tokens"},
            INPUTS["attentionMask"]: {0: "batch", 1: "tokens"},
            INPUTS["ngramMask"]: {0: "batch", 1: "ngrams", 2: "tokens"},
            OUTPUT: {0: "batch", 1: "ngrams"},
        }
        if with_order:
            axes[INPUTS["ngramOrder"]] = {0: "batch", 1: "ngrams"}
        args = (ids, att, nmask, order) if with_order else (ids, att, nmask)
        if with_stats:
            names.append(STATS_INPUT)
            axes[STATS_INPUT] = {0: "batch", 1: "ngrams"}
            args = (*args, sample_stats(nmask, model.stat_names))
        torch.onnx.export(
            model,
            args,
            str(out),
            opset_version=14,
            input_names=names,
            output_names=[OUTPUT],
            dynamic_axes=axes,
            do_constant_folding=True,
        )


def update_config(out_dir: Path, kind: str, onnx_name: str, final: bool, description: str, expansion_scale: float | None = None,
                  statistics: list | None = None, provenance: dict | None = None) -> None:
    path = out_dir / "config.json"
    cfg = json.loads(path.read_text()) if path.exists() else {}
    cfg.update(
        {
            "format": 1,
            "tokenizer": "tokenizer.json",
            "maxTokens": MAX_TOKENS,
            "profile": "terrier",
            "inputs": INPUTS,
            "output": OUTPUT,
        }
    )
    models = cfg.setdefault("models", {})
    models[kind] = {"file": onnx_name, "bigrams": kind == "twbert", "final": final, "description": description}
    if expansion_scale is not None:
        # TW-BERT + Bo1: applied by the runtime to the expansion words' weights (server/model/weighted-query.ts).
        models[kind]["expansionScale"] = expansion_scale
    if statistics:
        # The graph reads each n-gram's collection statistics (server/model/collection-statistics.ts), in this order.
        models[kind]["statistics"] = {"input": STATS_INPUT, "names": list(statistics)}
        if GENERICITY in statistics:
            # ... and genericity, from the table shipped beside it (server/model/genericity.ts).
            models[kind]["statistics"]["genericityTable"] = GENERICITY_BIN.name
    models[kind]["provenance"] = provenance or RECIPE_PROVENANCE
    path.write_text(json.dumps(cfg, indent=2) + "\n")


def write_parity_fixture(kind: str, model, inputs_file: Path, path: Path | None = None) -> Path:
    rows = read_jsonl(inputs_file)
    # Batch them all together: padding must not change any query's weights.
    ids, att, nmask, valid = pad_batch([r["ids"] for r in rows], [r["ngrams"] for r in rows])
    order = torch.zeros(nmask.shape[0], nmask.shape[1])
    for i, r in enumerate(rows):
        order[i, : len(r["terms"])] = torch.tensor([float(len(t) == 2) for t in r["terms"]])
    with torch.no_grad():
        if isinstance(model, StatsTWBert):
            # The inputs hold every statistic (STATISTIC_NAMES order); the model reads its own, in its order.
            # Genericity is not among them: it comes from the shipped table and the query's wordpieces, as at run time.
            names = [n for n in model.stat_names if n != GENERICITY]
            columns = [ALL_STAT_NAMES.index(n) for n in names]
            stats = torch.zeros(nmask.shape[0], nmask.shape[1], len(model.stat_names))
            table = read_bin() if GENERICITY in model.stat_names else None
            for i, r in enumerate(rows):
                if r["stats"]:
                    stats[i, : len(r["stats"]), : len(columns)] = torch.tensor(r["stats"])[:, columns]
                if table is not None:
                    g = record_genericity(table, {"ids": r["ids"], "ngrams": [{"tokens": t} for t in r["ngrams"]]})
                    stats[i, : len(g), len(columns)] = torch.tensor(g)
            weights = model(ids, att, nmask, order, stats)
        else:
            weights = model(ids, att, nmask, order)
    out = []
    for i, r in enumerate(rows):
        n = len(r["ngrams"])
        row = {"query": r["query"], "terms": r["terms"], "ids": r["ids"], "weights": [float(x) for x in weights[i, :n]]}
        if "stats" in r:
            row["stats"] = r["stats"]
        out.append(row)
    path = path or FIXTURES / f"parity-{kind}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"model": kind, "note": "PyTorch outputs for test/model parity (model/twbert/export.py)", "queries": out}, indent=1) + "\n")
    return path


def main(argv=None):
    # torch 1.13's exporter warns about prim::Constant shape inference on every Transformer layer; harmless.
    warnings.filterwarnings("ignore", category=UserWarning)
    p = argparse.ArgumentParser()
    p.add_argument("--model", choices=["twbert", "deepct"], required=True)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--out-dir", default=str(ARTIFACTS))
    p.add_argument("--not-final", action="store_true", help="mark the artifact as not the final model")
    p.add_argument("--parity-inputs", default=None, help="default: model/.work/parity-inputs-<model>.jsonl")
    p.add_argument("--no-parity", action="store_true", help="do not write the parity fixture")
    p.add_argument("--parity-out", default=None, help="where to write the parity fixture (default: test/model/fixtures/parity-<model>.json)")
    a = p.parse_args(argv)
    model, ck, scale = load_checkpoint(a.model, Path(a.checkpoint))
    out_dir = Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_name = f"{a.model}.onnx"
    export_onnx(model, out_dir / onnx_name, with_order=a.model == "twbert")
    desc = ck.get("description", "")
    stats_model = isinstance(model, StatsTWBert)
    update_config(out_dir, a.model, onnx_name, not a.not_final, desc, scale, statistics=model.stat_names if stats_model else None,
                  provenance=ck.get("provenance") if stats_model else None)
    if stats_model and GENERICITY in model.stat_names and out_dir.resolve() != GENERICITY_BIN.parent.resolve():
        shutil.copyfile(GENERICITY_BIN, out_dir / GENERICITY_BIN.name)
    print(f"exported {out_dir / onnx_name} ({(out_dir / onnx_name).stat().st_size / 1e6:.1f} MB)")
    parity_inputs = Path(a.parity_inputs or WORK / f"parity-inputs-{a.model}.jsonl")
    if parity_inputs.exists() and not a.no_parity:
        print(f"parity fixture: {write_parity_fixture(a.model, model, parity_inputs, Path(a.parity_out) if a.parity_out else None)}")


if __name__ == "__main__":
    main()
