"""TW-BERT + Bo1 that decides per query and per word how much to expand (issue 16 item 5), selected by
leave-one-collection-out exactly as loco.py selects the collection-aware model.

The model (model.StatsTWBert with `expansion`) reads the query followed by Bo1's words (ranking.ts bo1ModelInput)
and, per n-gram, the collection statistics of loco.py plus what tells a helpful expansion from a harmful one
(server/model/collection-statistics.ts): which words are Bo1's and their Bo1 weight w', their share of the feedback
documents, how much they co-occur there with the query's words, and, per query, how far the feedback documents
stand out from the rest of the first pass and how much of the query they cover. A query-level gate scales every Bo1
word of the query (0 = no expansion, 1 = Bo1's own weights, up to 2) and a bounded per-word factor moves each one;
the untrained model is the phrase rule plus Bo1's weights.

Training: through the engine's BM25 (bm25.py) with loco.py's losses, on the `export-training --stats` exports of
the training collections, each batch from one collection, Bo1-expanded (`--expand bo1`) with probability
`expanded` and as written otherwise, so the same model weighs a query with and without expansion.

Selection (never on the figure reported): a configuration is a knob setting (GRID) and a number of epochs
(0..EPOCHS; 0 = the untrained phrase rule + Bo1). Every knob setting is trained seven times, each time on six
training collections, and measured after every epoch on the one left out (TW-BERT + Bo1 against uniform BM25 of the
query as written). The configuration reported for collection k is the one with the best mean TW-BERT + Bo1 gain on
the *other* six left-out collections. The shipped candidate: the configuration with the best mean over all seven,
trained on all seven. SciFact test and NFCorpus test never train or select anything.

  /usr/bin/python3 -m model.twbert.adaptive rotate   # the rotation; model/.work/adaptive-runs/
  /usr/bin/python3 -m model.twbert.adaptive folds    # + the fold models (model/.work/adaptive-folds/<collection>.pt)
  /usr/bin/python3 -m model.twbert.adaptive ship     # + the model on all seven (model/.work/twbert-adaptive.pt)

Training uses CUDA when torch.cuda.is_available(), the same recipe on the CPU otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import numpy as np
import torch

from . import loco
from .common import WORK, log, seed_all, load_own
from .finetune import Maxout
from .loco import DEVICE, REPORTING, TRAINING, batch_loss, load_collection, load_encoder, map_of, predict_all, uniform_weights
from .model import ALL_STAT_NAMES, StatsTWBert

DATA = WORK / "loco-x"
RUNS = WORK / "adaptive-runs"
FOLDS = WORK / "adaptive-folds"

# gate_lr: the learning rate of the expansion gate and scale, relative to `lr` (they start at "Bo1 as it is" and
# would barely move in a few hundred steps at the head's rate).
# gate_loss: the weight of a per-query loss that tells the gate, on the Bo1-expanded training queries, whether Bo1
# helped that query (untrained model: phrase rule + Bo1 against the phrase rule alone, AP of the query): target
# g = 1 where it helped, g = 0 where it hurt (the ranking losses say little about how much to expand a query).
# genericity: the model also reads each n-gram's genericity across reference corpora (model.StatsTWBert `genericity`);
# the rotation decides whether it is kept (`--genericity`: off = the grid without it, both = each setting with and
# without it, on = only with it).
BASE_GRID = [
    {"bound": 1.0, "context": c, "lr": lr, "expanded": 0.5, "gate_lr": g, "gate_loss": a}
    for a in (0.0, 1.0) for g in (1.0, 10.0) for c in (True, False) for lr in (2e-3, 5e-4)
]
GRID = BASE_GRID
# Pseudo-queries (model/make-pseudo.mjs: a document's title as the query for its own abstract, in an abstract-only
# index of the corpus), each set with the training collection whose corpus it comes from: with the knob `pseudo` a
# run also trains on the sets of its own training collections' corpora (never of the left-out one's), each set one
# more pool of batches. `--pseudo-dir` holds their `export-training --stats` exports (plain and -bo1).
PSEUDO = {"pseudo-cacm": "cacm", "pseudo-scifact": "scifact-train"}
FULL_GRID = BASE_GRID  # the grid before --grid-pick/--grid-limit: a run's file is named by its index here


def fold_file(k: str, knobs: dict) -> Path:
    return RUNS / f"fold.{k}.{FULL_GRID.index(knobs)}.pt"


def save_new(obj, path: Path) -> None:
    # A runs folder may link to another rotation's runs (reused, never rewritten): replace a link, never write through.
    if path.is_symlink():
        path.unlink()
    torch.save(obj, path)
EPOCHS = 6
EPOCH_QUERIES = 320
BATCH = 32
WEIGHT_DECAY = 1e-2
EXPANSION_COLUMN = ALL_STAT_NAMES.index("expansion")
BO1_WEIGHT_COLUMN = ALL_STAT_NAMES.index("bo1Weight")

DESCRIPTION = ("collection-aware TW-BERT with adaptive Bo1 expansion: frozen pre-trained encoder + BISON-style statistics "
               "attention, a per-query expansion gate and per-word factors, trained through BM25 on the seven training "
               "collections with and without Bo1, knobs chosen by leave-one-collection-out (model/MODEL_CARD.md)")


def occurrence_stat(q, column: int) -> np.ndarray:
    """[G]: one statistic of every n-gram occurrence of a prepared query (from its encoder rows)."""
    out = np.zeros(len(q.ngram_tokens))
    for r in q.rows:
        out[r.ngrams.numpy()] = r.stats[:, column].numpy()
    return out


def bo1_weights(q) -> np.ndarray:
    """Plain Bo1 (SEMANTICS.md §4.5) as per-occurrence weights of an expanded export: an original word's concept gets
    count / max count + w', a Bo1 word w', no pairs. For the log only (the table's Bo1 column is the engine's)."""
    uni = q.is_unigram.numpy()
    exp = q.is_expansion.numpy() if q.is_expansion is not None else np.zeros_like(uni)
    w_prime = occurrence_stat(q, BO1_WEIGHT_COLUMN)
    concept = q.occ_concept.numpy()
    original = uni & ~exp
    counts = np.bincount(concept[original], minlength=int(concept.max()) + 1) if original.any() else np.zeros(1)
    top = max(1, counts.max())
    w = np.zeros(len(uni))
    for i in np.nonzero(original)[0]:
        w[i] = 1.0 / top + w_prime[i] / counts[concept[i]]
    w[exp] = w_prime[exp]
    return w


def new_model(hidden: int, knobs: dict) -> StatsTWBert:
    return StatsTWBert(hidden=hidden, bound=knobs["bound"], context=knobs["context"], expansion=True,
                       genericity=knobs.get("genericity", False), gate_summary=knobs.get("gate_summary", False)).to(DEVICE)


def gains(model, evaluate: dict) -> dict:
    """name -> TW-BERT gain, name+"+bo1" -> TW-BERT + Bo1 gain, both over uniform BM25 of the query as written."""
    out = {}
    for n, (plain, expanded, uni) in evaluate.items():
        table = predict_all(model, plain)
        out[n] = map_of(plain, lambda q: table[id(q)]) / uni - 1.0
        table = predict_all(model, expanded)
        out[n + "+bo1"] = map_of(expanded, lambda q: table[id(q)]) / uni - 1.0
    return out


# The graded gate target (knob `graded_gate`): the AP change Bo1 brings a training query, mapped linearly onto 0..1 and
# saturating at ±GRADED_SPAN (fixed, not tuned): a query Bo1 helps a little asks for a little expansion.
GRADED_SPAN = 0.1


def expansion_targets(plain: list, expanded: list) -> dict:
    """The gate loss's targets (halved), both kinds from one pass: "sign": id(expanded query) -> 1.0 where the untrained
    model (phrase rule + Bo1's weights) ranks the query better than the phrase rule without expansion (AP), 0.0 where
    worse, 0.5 on a tie; "graded": 0.5 + (AP with Bo1 − AP without) / (2 · GRADED_SPAN), clipped to 0..1."""
    untrained = {}
    by_qid = {q.qid: q for q in plain}
    model = None
    sign, graded = {}, {}
    for q in expanded:
        p = by_qid.get(q.qid)
        if p is None or q.judged_relevant == 0:
            continue
        if model is None:
            model = new_model(q.rows[0].feats.shape[-1], {"bound": 1.0, "context": False})
            untrained = predict_all(model, expanded)
        with_bo1 = loco.aps_of([q], lambda x: untrained[id(x)])[0]
        without = loco.aps_of([p], loco.phrase_weights)[0]
        graded[id(q)] = float(min(1.0, max(0.0, 0.5 + (with_bo1 - without) / (2 * GRADED_SPAN))))
        sign[id(q)] = 1.0 if with_bo1 > without + 1e-9 else 0.0 if with_bo1 < without - 1e-9 else 0.5
    return {"sign": sign, "graded": graded}


def train(plain: dict, expanded: dict, names: list, knobs: dict, epochs: int, seed: int, evaluate: dict | None = None,
          states: list | None = None, targets: dict | None = None):
    """Trains on the collections `names`; history[e] = gains() after e epochs (e = 0: untrained), states[e] likewise.
    `targets`: the gate loss's per-query targets, {"sign": …, "graded": …} (the knob `graded_gate` picks one)."""
    if targets is not None:
        targets = targets["graded" if knobs.get("graded_gate") else "sign"]
    seed_all(seed)
    rng = random.Random(seed)
    model = new_model(plain[names[0]][0].rows[0].feats.shape[-1], knobs)
    maxout = Maxout().to(DEVICE)
    lr = knobs["lr"]
    is_gate = lambda n: n.startswith("gate.") or n.startswith("gate_summary.") or n == "expansion_log_scale"  # noqa: E731
    gate = [p for n, p in model.named_parameters() if is_gate(n)]
    rest = [p for n, p in model.named_parameters() if not is_gate(n)]
    opt = torch.optim.AdamW([{"params": rest + list(maxout.parameters()), "base_lr": lr},
                             {"params": gate, "base_lr": lr * knobs.get("gate_lr", 1.0)}], lr=lr, weight_decay=WEIGHT_DECAY)
    sets = names + ([p for p, source in PSEUDO.items() if source in names and p in plain] if knobs.get("pseudo") else [])
    pools = [([q for q in plain[n] if any(q.rel > 0)], [q for q in expanded[n] if any(q.rel > 0)]) for n in sets]
    history = []

    def checkpoint():
        if evaluate:
            history.append(gains(model, evaluate))
        if states is not None:
            states.append({k: v.detach().cpu().clone() for k, v in model.state_dict().items()})

    checkpoint()
    steps_per_epoch = EPOCH_QUERIES // BATCH
    total = steps_per_epoch * epochs
    step = 0
    for _epoch in range(epochs):
        for _ in range(steps_per_epoch):
            # One collection per batch, chosen uniformly (SciFact train alone has half of the queries), Bo1-expanded
            # with probability `expanded`.
            as_written, with_bo1 = rng.choice(pools)
            pool = with_bo1 if rng.random() < knobs["expanded"] else as_written
            batch = [rng.choice(pool) for _ in range(BATCH)]
            for group in opt.param_groups:
                group["lr"] = group["base_lr"] * (1.0 - step / total)
            loss = batch_loss(model, maxout, batch, rng)
            if knobs.get("gate_loss", 0.0) > 0 and pool is with_bo1 and targets:
                # The gate's per-query target: g/2 = sigmoid(γ) towards 0.5 (Bo1 as it is) or 0 (no expansion).
                loco.predict_padded(model, batch)
                rows = [qi for qi, q in enumerate(batch) for _ in q.rows]
                t = torch.tensor([targets.get(id(batch[qi]), 0.5) * 0.5 for qi in rows], device=DEVICE)
                gate_loss = torch.nn.functional.binary_cross_entropy_with_logits(model.last_gate_logit.squeeze(-1), t)
                loss = gate_loss * knobs["gate_loss"] if loss is None else loss + gate_loss * knobs["gate_loss"]
            if loss is not None:
                opt.zero_grad()
                loss.backward()
                opt.step()
            step += 1
        checkpoint()
    return model, history


def run_key(names, knobs) -> str:
    # A knob at its neutral value (no gate loss, no genericity) is left out of the key, so runs made before it existed
    # stay valid.
    knobs = {k: v for k, v in knobs.items() if not ((k == "gate_loss" and v == 0.0) or (k in ("genericity", "pseudo", "gate_summary", "graded_gate") and not v))}
    return "+".join(sorted(names)) + "|" + json.dumps(knobs, sort_keys=True)


def choose(results: dict, outer: str | None):
    """(mean, knobs, epochs): the configuration with the best mean TW-BERT + Bo1 gain over the left-out training
    collections other than `outer` (all seven for the shipped model)."""
    best = None
    for knobs in GRID:
        for e in range(EPOCHS + 1):
            g = [results[run_key([n for n in TRAINING if n != j], knobs)][e][j + "+bo1"] for j in TRAINING if j != outer]
            mean = float(np.mean(g))
            if best is None or mean > best[0]:
                best = (mean, knobs, e)
    return best


def main(argv=None):
    global DATA, RUNS, FOLDS, EPOCHS, EPOCH_QUERIES, GRID, FULL_GRID
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stage", choices=["rotate", "folds", "ship"])
    p.add_argument("--encoder", default=str(WORK / "pretrained.pt"))
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", default=str(WORK / "twbert-adaptive.pt"))
    p.add_argument("--log", default=str(WORK / "adaptive.log"))
    p.add_argument("--data-dir", default=str(DATA), help="export-training --stats JSONL (plain and -bo1), one pair per collection")
    p.add_argument("--runs-dir", default=str(RUNS))
    p.add_argument("--folds-dir", default=str(FOLDS))
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--epoch-queries", type=int, default=EPOCH_QUERIES)
    p.add_argument("--grid-limit", type=int, default=None, help="smoke tests: only the first N knob settings of GRID")
    p.add_argument("--grid-pick", default=None, help="smoke tests: only these knob settings of GRID (comma-separated indices)")
    p.add_argument("--genericity", choices=["off", "on", "both"], default="off",
                   help="the grid without the genericity statistic, with it only, or each setting both ways")
    p.add_argument("--pseudo", choices=["off", "on", "both"], default="off",
                   help="the grid without the pseudo-queries (PSEUDO), with them only, or each setting both ways")
    p.add_argument("--gate-summary", choices=["off", "on", "both"], default="off",
                   help="the grid without the gate's summary of the first pass and Bo1's words (model.gate_summary_features), with it only, or both")
    p.add_argument("--graded-gate", choices=["off", "on", "both"], default="off",
                   help="the gate loss's target: Bo1 helped or hurt the query (off), how much (on: GRADED_SPAN), or each setting both ways")
    p.add_argument("--pseudo-dir", default=str(WORK / "pseudo-x"), help="export-training --stats of the PSEUDO sets (plain and -bo1)")
    p.add_argument("--configuration", default=None,
                   help="ship only: train the model on all seven with the configuration a rotation chose and recorded in "
                        "this JSON file ({knobs, epochs, ...}; model/twbert/shipped-configuration.json), without re-running the rotation")
    a = p.parse_args(argv)
    if a.configuration and a.stage != "ship":
        raise SystemExit("adaptive: --configuration is for the ship stage only")
    if a.genericity != "off":
        with_it = [{**k, "genericity": True} for k in BASE_GRID]
        GRID = with_it if a.genericity == "on" else BASE_GRID + with_it
    if a.pseudo != "off":
        with_it = [{**k, "pseudo": True} for k in GRID]
        GRID = with_it if a.pseudo == "on" else GRID + with_it
    if a.gate_summary != "off":
        with_it = [{**k, "gate_summary": True} for k in GRID]
        GRID = with_it if a.gate_summary == "on" else GRID + with_it
    if a.graded_gate != "off":
        with_it = [{**k, "graded_gate": True} for k in GRID]
        GRID = with_it if a.graded_gate == "on" else GRID + with_it
    FULL_GRID = list(GRID)
    if a.grid_limit:
        GRID = GRID[: a.grid_limit]
    if a.grid_pick:
        GRID = [GRID[int(i)] for i in a.grid_pick.split(",")]
    DATA, RUNS, FOLDS, EPOCHS, EPOCH_QUERIES = Path(a.data_dir), Path(a.runs_dir), Path(a.folds_dir), a.epochs, a.epoch_queries
    loco.LOCO_DATA = DATA
    loco.CACHE = RUNS / "cache"
    torch.set_num_threads(int(os.environ.get("TWBERT_THREADS", "1")))
    logf = Path(a.log)
    if not Path(a.encoder).exists():
        raise SystemExit(f"adaptive: no pre-trained encoder at {a.encoder} (run `python3 -m model.twbert.train pretrain` first)")
    missing = [f"{n}{s}.jsonl" for n in TRAINING + REPORTING for s in ("", "-bo1") if not (DATA / f"{n}{s}.jsonl").exists()]
    if missing:
        raise SystemExit(f"adaptive: {DATA} lacks {', '.join(missing)} (run `python3 -m model.twbert.train loco-data`)")
    encoder = load_encoder(Path(a.encoder))
    t = time.time()
    plain = {n: load_collection(n, encoder) for n in TRAINING + REPORTING}
    expanded = {n: load_collection(n, encoder, "-bo1") for n in TRAINING + REPORTING}
    if any(k.get("pseudo") for k in GRID):
        pseudo_dir = Path(a.pseudo_dir)
        missing = [f"{n}{s}.jsonl" for n in PSEUDO for s in ("", "-bo1") if not (pseudo_dir / f"{n}{s}.jsonl").exists()]
        if missing:
            raise SystemExit(f"adaptive: {pseudo_dir} lacks {', '.join(missing)} (export-training --stats of the pseudo-query sets)")
        for n in PSEUDO:
            plain[n] = load_collection(n, encoder, data_dir=pseudo_dir)
            expanded[n] = load_collection(n, encoder, "-bo1", data_dir=pseudo_dir)
    uniform = {n: map_of(plain[n], uniform_weights) for n in plain}
    targets = {"sign": {}, "graded": {}}
    for n in TRAINING + [p for p in PSEUDO if p in plain]:
        for kind, per_query in expansion_targets(plain[n], expanded[n]).items():
            targets[kind].update(per_query)
    helped = list(targets["sign"].values())
    log(logf, f"gate targets: Bo1 helps {sum(v == 1.0 for v in helped)}, hurts {sum(v == 0.0 for v in helped)}, ties {sum(v == 0.5 for v in helped)} of the training queries")
    bo1 = {n: map_of(expanded[n], bo1_weights) / uniform[n] - 1.0 for n in plain}
    log(logf, f"adaptive: {', '.join(f'{n} {len(v)}' for n, v in plain.items())} queries ({time.time() - t:.0f} s), device {DEVICE}; "
              "plain Bo1 (Python re-ranking) " + " ".join(f"{n} {g:+.4f}" for n, g in bo1.items()))

    if a.configuration:
        # The rotation's choice, recorded when it ran (its runs folder is a build product, not kept): the same
        # training as below, on all seven, so the shipped model is what the rotation would ship.
        recorded = json.loads(Path(a.configuration).read_text())
        ship(plain, expanded, uniform, bo1, targets, recorded["knobs"], int(recorded["epochs"]), a, logf)
        return
    RUNS.mkdir(parents=True, exist_ok=True)
    results_path = RUNS / "histories.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    jobs = [(k, knobs) for knobs in GRID for k in TRAINING]
    for i, (k, knobs) in enumerate(jobs):
        names = [n for n in TRAINING if n != k]
        key = run_key(names, knobs)
        if key in results:
            continue
        t = time.time()
        states = []
        model, history = train(plain, expanded, names, knobs, EPOCHS, a.seed, {k: (plain[k], expanded[k], uniform[k])}, states, targets)
        save_new({"states": states, "head": model.head_config(), "knobs": knobs}, fold_file(k, knobs))
        results[key] = history
        results_path.write_text(json.dumps(results))
        log(logf, f"run {i + 1}/{len(jobs)} left out {k}, knobs {knobs}: TW-BERT + Bo1 gain per epoch (0 = untrained) "
                  + " ".join(f"{h[k + '+bo1']:+.4f}" for h in history) + "; TW-BERT " + " ".join(f"{h[k]:+.4f}" for h in history)
                  + f" ({time.time() - t:.0f} s)")

    table = {}
    for k in TRAINING:
        mean, knobs, epochs = choose(results, k)
        h = results[run_key([n for n in TRAINING if n != k], knobs)][epochs]
        table[k] = {"knobs": knobs, "epochs": epochs, "others": mean, "gain": h[k + "+bo1"], "gainPlain": h[k], "bo1": bo1[k]}
        log(logf, f"left out {k}: chose {knobs} x{epochs} (mean on the other six {mean:+.4f}) -> its TW-BERT + Bo1 gain "
                  f"{h[k + '+bo1']:+.4f} (plain Bo1 {bo1[k]:+.4f}), TW-BERT {h[k]:+.4f}")
    log(logf, f"LOCO mean TW-BERT + Bo1 gain {np.mean([v['gain'] for v in table.values()]):+.4f} "
              f"(plain Bo1 {np.mean([bo1[k] for k in TRAINING]):+.4f}), TW-BERT {np.mean([v['gainPlain'] for v in table.values()]):+.4f}")
    mean, knobs, epochs = choose(results, None)
    log(logf, f"shipped configuration: {knobs} x{epochs} (rotation mean {mean:+.4f})")
    (RUNS / "selection.json").write_text(json.dumps({"outer": table, "shipped": {"knobs": knobs, "epochs": epochs, "rotation": mean},
                                                     "uniform": uniform, "bo1": bo1}, indent=1))
    if a.stage in ("folds", "ship"):
        FOLDS.mkdir(parents=True, exist_ok=True)
        for k, v in table.items():
            saved = load_own(fold_file(k, v["knobs"]))
            others = [n for n in TRAINING if n != k]
            torch.save({"state": saved["states"][v["epochs"]], "head": saved["head"], "knobs": v["knobs"], "epochs": v["epochs"],
                        "encoder": a.encoder, "provenance": loco.provenance(others, others),
                        "description": f"{DESCRIPTION}; fold model: trained and selected without {k}"}, FOLDS / f"{k}.pt")
        log(logf, f"fold models in {FOLDS}")
    if a.stage == "ship":
        ship(plain, expanded, uniform, bo1, targets, knobs, epochs, a, logf)


def ship(plain, expanded, uniform, bo1, targets, knobs, epochs, a, logf):
    """The model on all seven training collections with the chosen configuration, saved to `a.out`; the reporting
    sets' gains are logged (they select nothing)."""
    t = time.time()
    model, _ = train(plain, expanded, TRAINING, knobs, epochs, a.seed, targets=targets)
    model = model.cpu()
    torch.save({"state": model.state_dict(), "head": model.head_config(), "knobs": knobs, "epochs": epochs,
                "encoder": a.encoder, "provenance": loco.provenance(TRAINING, TRAINING), "description": DESCRIPTION}, a.out)
    log(logf, f"model on all seven: {knobs} x{epochs} -> {a.out} ({time.time() - t:.0f} s)")
    model = model.to(DEVICE)
    for n in REPORTING:
        g = gains(model, {n: (plain[n], expanded[n], uniform[n])})
        log(logf, f"reporting {n}: uniform {uniform[n]:.4f}, TW-BERT {g[n]:+.4f}, TW-BERT + Bo1 {g[n + '+bo1']:+.4f} (plain Bo1 {bo1[n]:+.4f})")


if __name__ == "__main__":
    main()
