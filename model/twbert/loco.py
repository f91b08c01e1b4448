"""The collection-aware TW-BERT (issue 16) and its leave-one-collection-out (LOCO) model selection.

Model (model.StatsTWBert): the pre-trained encoder, frozen, reads the query's wordpieces; each uni-gram and
bi-gram gets its pooled contextual state plus its statistics *in the collection the query runs on*
(server/model/collection-statistics.ts: idf, ictf, the `#1` pair ratio, the share of the first-pass top 10, Bo1
informativeness; exported by `export-training --stats`, computed identically at run time). A BISON-style
self-attention layer over the query's n-grams adds a learned function of each key's statistics to the attention
logits, so context and corpus statistics interact; a small head turns each n-gram's state into a bounded factor
on the fixed phrase rule's weight (uni-gram 1, bi-gram a learned base). No table keyed by word identity.

Training: through the engine's BM25 (bm25.py) with the fine-tuning losses (finetune.py: max-scaled scores, maxout,
AMSE + ListMLE), on the exported candidates of each query.

Selection (never on the figure reported): a configuration is a knob setting (`GRID`) and a number of epochs
(1..EPOCHS). Every knob setting is trained seven times, each time on six training collections, and measured after
every epoch on the one left out. The configuration reported for collection k is the one with the best mean gain
on the *other* six left-out collections (their runs), so k's own figure never takes part in choosing it. The
shipped model: the configuration with the best mean gain over all seven, trained on all seven collections. The
two reporting sets (SciFact test, NFCorpus test) never train or select anything.

  /usr/bin/python3 -m model.twbert.loco rotate     # the whole rotation; writes model/.work/loco-runs/
  /usr/bin/python3 -m model.twbert.loco folds      # + each left-out collection's fold model (model/.work/loco-folds/)
  /usr/bin/python3 -m model.twbert.loco ship       # + the shipped model, trained with the knobs the rotation chose

Training uses CUDA when torch.cuda.is_available(), the same recipe on the CPU otherwise.
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import random
import time
from pathlib import Path

import numpy as np
import torch

from . import bm25
from .common import DEVICE, WORK, log, pad_batch, read_jsonl, seed_all, load_own
from .finetune import D1, D2, LISTMLE_TEMPERATURE, Maxout
from .genericity import GENERICITY_BIN, read_bin, record_genericity
from .model import ALL_STAT_NAMES, FULL_STAT_NAMES, EncoderConfig, StatsTWBert, TWBert

TRAINING = ["cacm", "scifact-train", "cranfield", "adi", "lisa", "time", "nfcorpus-dev"]
REPORTING = ["scifact-test", "nfcorpus-test"]
# Every statistic an export may hold (a model reads the first five, or all with `expansion`); one missing from an
# older export reads 0. The prepared rows then get the genericity column (FULL_STAT_NAMES), from the shipped table.
STAT_NAMES = ALL_STAT_NAMES
GENERICITY_TABLE = GENERICITY_BIN
LOCO_DATA = WORK / "loco"
RUNS = WORK / "loco-runs"
FOLDS = WORK / "loco-folds"
CACHE = WORK / "cache"

# The knobs the rotation chooses between (with the number of epochs, 1..EPOCHS).
GRID = [
    {"bound": b, "balance": True, "context": c, "lr": lr}
    for c in (True, False) for b in (0.5, 1.0) for lr in (2e-3, 5e-4)
]
EPOCHS = 6
EPOCH_QUERIES = 320
LR = 2e-3
WEIGHT_DECAY = 1e-2
BATCH = 32


class Row:
    """One encoder input of a query (the query, or one window of a long query) and the n-grams it weighs."""

    __slots__ = ("ngrams", "feats", "stats", "order")

    def __init__(self, ngrams, feats, stats, order):
        self.ngrams, self.feats, self.stats, self.order = ngrams, feats, stats, order


def encoder_fingerprint(encoder: TWBert | None) -> str:
    """A short digest of the encoder's weights ("noenc" without one)."""
    if encoder is None:
        return "noenc"
    h = hashlib.sha1()
    for k, v in sorted(encoder.state_dict().items()):
        h.update(k.encode())
        h.update(v.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:12]


def load_collection(name: str, encoder: TWBert | None, suffix: str = "", data_dir: Path | None = None) -> list[bm25.QueryData]:
    """Prepared queries of model/.work/loco/<name><suffix>.jsonl (or `data_dir`'s) with their frozen-encoder rows
    (cached on disk). Without an encoder the contextual states are zeros: enough for the statistics-only configurations."""
    path = (data_dir or LOCO_DATA) / f"{name}{suffix}.jsonl"
    st = path.stat()
    # Keyed by the export file and by the encoder that computed the rows: another encoder must not reuse them.
    cache = CACHE / f"loco.{name}{suffix}.{st.st_size}.{int(st.st_mtime)}.{encoder_fingerprint(encoder)}.pt"
    if cache.exists():
        return with_genericity(path, load_own(cache))
    queries = []
    for record in read_jsonl(path):
        q = bm25.prepare(record)
        if q is None:
            continue
        stats = torch.tensor([[g["stats"].get(k, 0.0) for k in STAT_NAMES] for g in record["ngrams"]], dtype=torch.float32)
        order = (~q.is_unigram).float()
        windows = record.get("windows") or [{"ids": record["ids"], "ngrams": list(range(len(record["ngrams"]))),
                                              "ngramTokens": [g["tokens"] for g in record["ngrams"]]}]
        rows = []
        with torch.no_grad():
            for w in windows:
                if not w["ngrams"]:
                    continue
                ids, att, nmask, _ = pad_batch([w["ids"]], [w["ngramTokens"]])
                feats = encoder.features(ids, att, nmask)[0] if encoder else torch.zeros(len(w["ngrams"]), 128)
                idx = torch.tensor(w["ngrams"], dtype=torch.long)
                rows.append(Row(idx, feats, stats[idx], order[idx]))
        q.rows = rows
        queries.append(q)
    cache.parent.mkdir(parents=True, exist_ok=True)
    torch.save(queries, cache)
    return with_genericity(path, queries)


def with_genericity(path: Path, queries: list) -> list:
    """Appends each n-gram's genericity (genericity.record_genericity, from GENERICITY_TABLE) to its rows' statistics,
    so they hold FULL_STAT_NAMES; computed from the export's wordpieces once and cached beside the prepared queries."""
    if queries and queries[0].rows and queries[0].rows[0].stats.shape[1] == len(FULL_STAT_NAMES):
        return queries
    st, table_st = path.stat(), Path(GENERICITY_TABLE).stat()
    side = CACHE / f"genericity.{path.stem}.{st.st_size}.{int(st.st_mtime)}.{table_st.st_size}.{int(table_st.st_mtime)}.json"
    if side.exists():
        by_qid = json.loads(side.read_text())
    else:
        table = read_bin(Path(GENERICITY_TABLE))
        by_qid = {r["qid"]: record_genericity(table, r) for r in read_jsonl(path)}
        side.write_text(json.dumps(by_qid))
    for q in queries:
        g = torch.tensor(by_qid[q.qid], dtype=torch.float32)
        for r in q.rows:
            r.stats = torch.cat([r.stats, g[r.ngrams].unsqueeze(-1)], -1)
    return queries


def load_encoder(path: Path) -> TWBert:
    ck = load_own(path)
    model = TWBert(EncoderConfig(**ck["cfg"]))
    model.load_state_dict(ck["state"], strict=False)
    model.eval()
    return model


def batch_rows(queries):
    """Pads the rows of `queries` into [R,G,*] tensors; returns them and, per query, its (row, n-gram) slots."""
    rows = [(qi, r) for qi, q in enumerate(queries) for r in q.rows]
    g = max(len(r.ngrams) for _, r in rows)
    h = rows[0][1].feats.shape[-1]
    feats = torch.zeros(len(rows), g, h)
    stats = torch.zeros(len(rows), g, len(FULL_STAT_NAMES))
    order = torch.zeros(len(rows), g)
    valid = torch.zeros(len(rows), g, dtype=torch.bool)
    for i, (_, r) in enumerate(rows):
        n = len(r.ngrams)
        feats[i, :n], order[i, :n], valid[i, :n] = r.feats, r.order, True
        stats[i, :n, : r.stats.shape[1]] = r.stats
    return rows, feats.to(DEVICE), stats.to(DEVICE), order.to(DEVICE), valid.to(DEVICE)


def predict(model: StatsTWBert, queries) -> list[torch.Tensor]:
    """Per query, one weight per n-gram occurrence (in the record's order)."""
    w = predict_padded(model, queries)
    return [w[i, : len(q.ngram_tokens)] for i, q in enumerate(queries)]


def uniform_weights(q) -> np.ndarray:
    return q.is_unigram.numpy().astype(np.float64)


def phrase_weights(q) -> np.ndarray:
    return np.where(q.is_unigram.numpy(), 1.0, 0.25)


def map_of(queries, weights_of) -> float:
    aps = []
    for q in queries:
        w = weights_of(q)
        ap = bm25.average_precision(q, bm25.scores(q, torch.tensor(w, dtype=torch.float64)).numpy(), w)
        if not np.isnan(ap):
            aps.append(ap)
    return float(np.mean(aps)) if aps else float("nan")


def aps_of(queries, weights_of) -> list[float]:
    out = []
    for q in queries:
        w = weights_of(q)
        out.append(bm25.average_precision(q, bm25.scores(q, torch.tensor(w, dtype=torch.float64)).numpy(), w))
    return out


def predict_all(model, queries) -> dict:
    """The model's weights of every query (eval mode, in chunks), by id(query)."""
    model.eval()
    with torch.no_grad():
        ws = []
        for i in range(0, len(queries), 128):
            ws += [w.double().cpu().numpy() for w in predict(model, queries[i : i + 128])]
    model.train()
    return {id(q): w for q, w in zip(queries, ws)}


def model_map(model, queries) -> float:
    table = predict_all(model, queries)
    return map_of(queries, lambda q: table[id(q)])


N_POS, N_HARD, N_REST = 4, 10, 5  # per query and step: judged relevant documents, negatives from the top 50, others


def training_view(q):
    """What a training step reads of a query, computed once: X = tfn·idf [D, C] (BM25 without the query-weight
    factor), the occurrence->concept matrix [G, C], the graded labels, and the pools to sample documents from
    (as finetune.sample_docs: judged relevant, negatives from the uniform top 50, other negatives)."""
    view = getattr(q, "view", None)
    if view is None:
        x = (q.tfn * q.idf).float()
        occ = torch.zeros(len(q.ngram_tokens), q.idf.shape[0])
        occ[torch.arange(len(q.ngram_tokens)), q.occ_concept] = 1.0
        live = np.nonzero(q.matched)[0]
        pos = [int(d) for d in live if q.rel[d] > 0]
        hard = [int(d) for d in live if q.rel[d] <= 0 and q.rank[d] <= 50]
        rest = [int(d) for d in live if q.rel[d] <= 0 and q.rank[d] > 50]
        view = q.view = (x, occ, pos, hard, rest)
    return view


def batch_loss(model, maxout, batch, rng):
    """The fine-tuning loss (finetune.py: BM25 scores of sampled documents, divided by their maximum, maxout,
    AMSE to the graded labels + top-k ListMLE over the relevant documents' positions), for a whole batch at once."""
    samples = []
    for q in batch:
        x, occ, pos, hard, rest = training_view(q)
        if not pos:
            continue
        p = rng.sample(pos, min(N_POS, len(pos)))
        top = max(q.rel[d] for d in p)
        neg = rng.sample(hard, min(len(hard), N_HARD))
        neg += rng.sample(rest, min(len(rest), N_HARD + N_REST - len(neg)))
        if not neg:
            continue
        # Relevant documents first, by grade (ties in random order, already shuffled by the sample).
        p.sort(key=lambda d: -q.rel[d])
        samples.append((q, p + neg, [q.rel[d] / top for d in p] + [0.0] * len(neg), len(p)))
    if not samples:
        return None
    qs = [s[0] for s in samples]
    weights = predict_padded(model, qs)  # [B, G]
    b, d_max = len(samples), max(len(s[1]) for s in samples)
    c_max = max(training_view(q)[0].shape[1] for q in qs)
    g_max = weights.shape[1]
    x = torch.zeros(b, d_max, c_max)
    occ = torch.zeros(b, g_max, c_max)
    labels = torch.zeros(b, d_max)
    docmask = torch.zeros(b, d_max, dtype=torch.bool)
    npos = torch.zeros(b, dtype=torch.long)
    for i, (q, docs, lab, k) in enumerate(samples):
        xq, oq, *_ = training_view(q)
        x[i, : len(docs), : xq.shape[1]] = xq[docs]
        occ[i, : oq.shape[0], : oq.shape[1]] = oq
        labels[i, : len(docs)] = torch.tensor(lab)
        docmask[i, : len(docs)] = True
        npos[i] = k
    x, occ, labels, docmask, npos = x.to(DEVICE), occ.to(DEVICE), labels.to(DEVICE), docmask.to(DEVICE), npos.to(DEVICE)
    f = torch.bmm(weights.unsqueeze(1), occ).squeeze(1)  # [B, C]: summed weights per concept
    qtw = f / f.amax(-1, keepdim=True).clamp(min=1e-9)
    qf = (bm25.K3 + 1) * qtw / (bm25.K3 + qtw)
    s = torch.bmm(x, qf.unsqueeze(-1)).squeeze(-1)  # [B, D]
    smax = s.masked_fill(~docmask, 0).amax(-1, keepdim=True)
    ok = smax.squeeze(-1) > 0
    scaled = s / smax.clamp(min=1e-9)
    e = (maxout(scaled) - labels).abs()
    quad = (e - D1).clamp(min=0.0, max=D2 - D1) ** 2
    lin = 2 * (D2 - D1) * (e - D2).clamp(min=0.0)
    amse_q = ((quad + lin) * docmask).sum(-1) / docmask.sum(-1)
    z = (scaled * LISTMLE_TEMPERATURE).masked_fill(~docmask, -1e4)
    rev_lse = torch.logcumsumexp(z.flip(-1), -1).flip(-1)
    first = torch.arange(d_max, device=DEVICE).unsqueeze(0) < npos.unsqueeze(1)
    listmle_q = ((rev_lse - z) * first).sum(-1) / npos
    loss = (amse_q + listmle_q)[ok]
    return loss.mean() if loss.numel() else None


def predict_padded(model, queries) -> torch.Tensor:
    """[B, G]: each query's weight per n-gram occurrence (0 past its n-grams), rows of long queries scattered back."""
    rows, feats, stats, order, valid = batch_rows(queries)
    w = model.score(feats, stats[..., model.stat_columns], order, valid)
    g_max = max(len(q.ngram_tokens) for q in queries)
    flat_target, flat_source = [], []
    for i, (qi, r) in enumerate(rows):
        flat_target.append(qi * g_max + r.ngrams)
        flat_source.append(i * w.shape[1] + torch.arange(len(r.ngrams)))
    target = torch.cat(flat_target).to(DEVICE)
    source = torch.cat(flat_source).to(DEVICE)
    out = torch.zeros(len(queries) * g_max, device=DEVICE, dtype=w.dtype)
    out = out.index_put((target,), w.reshape(-1)[source])
    return out.view(len(queries), g_max)


def train(data: dict, names: list[str], knobs: dict, epochs: int, seed: int, evaluate: dict | None = None, states: list | None = None):
    """Trains a model on the collections `names`; after each epoch, the MAP gain over uniform BM25 on each
    collection of `evaluate` (name -> (queries, uniform MAP)), and the model's state appended to `states` when given.
    Returns (model, [ {name: gain} per epoch ])."""
    seed_all(seed)
    rng = random.Random(seed)
    model = StatsTWBert(hidden=data[names[0]][0].rows[0].feats.shape[-1], bound=knobs["bound"],
                        context=knobs["context"]).to(DEVICE)
    maxout = Maxout().to(DEVICE)
    lr = knobs.get("lr", LR)
    opt = torch.optim.AdamW(list(model.parameters()) + list(maxout.parameters()), lr=lr, weight_decay=WEIGHT_DECAY)
    pools = [[q for q in data[n] if any(q.rel > 0)] for n in names]
    history = []
    steps_per_epoch = EPOCH_QUERIES // BATCH
    total = steps_per_epoch * epochs
    step = 0
    for _epoch in range(epochs):
        for _ in range(steps_per_epoch):
            # One collection per batch (its queries have similar lengths: little padding), chosen uniformly
            # (balance: SciFact train alone has half of the training queries) or by its number of queries.
            pool = rng.choice(pools) if knobs["balance"] else rng.choices(pools, weights=[len(p) for p in pools])[0]
            batch = [rng.choice(pool) for _ in range(BATCH)]
            for group in opt.param_groups:
                group["lr"] = lr * (1.0 - step / total)
            loss = batch_loss(model, maxout, batch, rng)
            if loss is not None:
                opt.zero_grad()
                loss.backward()
                opt.step()
            step += 1
        if evaluate:
            history.append({n: model_map(model, qs) / uni - 1.0 for n, (qs, uni) in evaluate.items()})
        if states is not None:
            states.append({k: v.detach().cpu().clone() for k, v in model.state_dict().items()})
    return model, history


def provenance(trained, selected) -> dict:
    """config.json's provenance (server/model/runtime.ts ModelProvenance): what trained and what selected the model."""
    return {"trainedOn": sorted(trained), "selectedOn": sorted(selected), "corporaRead": ["cacm", "scifact"],
            "note": "collection-aware TW-BERT (model/twbert/loco.py): the encoder pre-trained on the CACM and SciFact documents "
                    "and WordNet glosses, frozen; knobs and epochs chosen by leave-one-collection-out over the collections it was trained on"}


def run_key(names, knobs) -> str:
    return "+".join(sorted(names)) + "|" + json.dumps(knobs, sort_keys=True)


def rotate(data, seed, logf):
    """For each knob setting, the seven train-on-six runs, measured on the left-out collection after every epoch,
    and their per-epoch states (the fold models). Cached in RUNS: an interrupted rotation resumes."""
    RUNS.mkdir(parents=True, exist_ok=True)
    uniform = {n: map_of(data[n], uniform_weights) for n in TRAINING}
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
        model, history = train(data, names, knobs, EPOCHS, seed, {k: (data[k], uniform[k])}, states)
        torch.save({"states": states, "head": model.head_config(), "knobs": knobs}, RUNS / f"fold.{k}.{GRID.index(knobs)}.pt")
        results[key] = history
        results_path.write_text(json.dumps(results))
        log(logf, f"run {i + 1}/{len(jobs)} left out {k}, knobs {knobs}: gain per epoch "
                  + " ".join(f"{h[k]:+.4f}" for h in history) + f" ({time.time() - t:.0f} s)")
    return results, uniform


def choose(results, outer: str | None):
    """The configuration (knobs, epochs) with the best mean left-out gain over the training collections other than
    `outer` (all seven for the shipped model)."""
    best = None
    for knobs in GRID:
        for e in range(EPOCHS):
            gains = [results[run_key([n for n in TRAINING if n != j], knobs)][e][j] for j in TRAINING if j != outer]
            mean = float(np.mean(gains))
            if best is None or mean > best[0]:
                best = (mean, knobs, e + 1)
    return best


DESCRIPTION = ("collection-aware TW-BERT: frozen pre-trained encoder + BISON-style statistics attention over the query's n-grams, "
               "trained through BM25 on the seven training collections, knobs chosen by leave-one-collection-out (model/MODEL_CARD.md)")
EXPANSION_FACTORS = [0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0]


def expansion_gains(model, queries, uniform_map) -> dict:
    """TW-BERT + Bo1 (paper §5.3) in re-ranking: the model weighs the query and the Bo1 words it reads after it
    (export-training --expand bo1), the expansion words' weights times a factor; the MAP gain over uniform BM25
    (of the query as written) for each factor of EXPANSION_FACTORS."""
    table = predict_all(model, queries)
    out = {}
    for f in EXPANSION_FACTORS:
        def weights_of(q, f=f):
            w = table[id(q)]
            return w * np.where(q.is_expansion.numpy(), f, 1.0) if q.is_expansion is not None else w
        out[f] = map_of(queries, weights_of) / uniform_map - 1.0
    return out


def model_from(checkpoint: dict) -> StatsTWBert:
    head = {k: v for k, v in checkpoint["head"].items() if k != "kind"}
    model = StatsTWBert(**head).to(DEVICE)
    model.load_state_dict(checkpoint["state"])
    return model


def choose_expansion(encoder, uniform, logf):
    """The expansion factor of each fold model, chosen on the other six collections' Bo1-expanded queries, and the
    shipped model's, chosen on the seven fold models' left-out gains. Written into the fold checkpoints; returned."""
    if not all((LOCO_DATA / f"{n}-bo1.jsonl").exists() for n in TRAINING):
        log(logf, "no Bo1-expanded exports (export-training --expand bo1 --stats): expansion factor left at 1")
        return 1.0
    expanded = {n: load_collection(n, encoder, "-bo1") for n in TRAINING}
    own = {}
    for k in TRAINING:
        path = FOLDS / f"{k}.pt"
        ck = load_own(path)
        model = model_from(ck)
        per = {j: expansion_gains(model, expanded[j], uniform[j]) for j in TRAINING}
        best = max(EXPANSION_FACTORS, key=lambda f: np.mean([per[j][f] for j in TRAINING if j != k]))
        own[k] = per[k]
        ck["expansionScale"] = best
        torch.save(ck, path)
        log(logf, f"left out {k}: expansion factor {best} (chosen on the other six) -> its TW-BERT + Bo1 gain {per[k][best]:+.4f}")
    shipped = max(EXPANSION_FACTORS, key=lambda f: np.mean([own[k][f] for k in TRAINING]))
    log(logf, f"shipped expansion factor: {shipped} (rotation mean {np.mean([own[k][shipped] for k in TRAINING]):+.4f})")
    return shipped


def main(argv=None):
    global LOCO_DATA, RUNS, FOLDS, CACHE, EPOCHS, EPOCH_QUERIES
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stage", choices=["rotate", "folds", "ship"])
    p.add_argument("--encoder", default=str(WORK / "pretrained.pt"))
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", default=str(WORK / "twbert-stats.pt"))
    p.add_argument("--log", default=str(WORK / "loco.log"))
    p.add_argument("--data-dir", default=str(LOCO_DATA), help="export-training --stats JSONL, one file per collection")
    p.add_argument("--runs-dir", default=str(RUNS), help="the rotation's runs (resumable) and its selection.json")
    p.add_argument("--folds-dir", default=str(FOLDS), help="the fold models (one checkpoint per left-out collection)")
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--epoch-queries", type=int, default=EPOCH_QUERIES)
    p.add_argument("--grid-limit", type=int, default=None, help="smoke tests: only the first N knob settings of GRID")
    a = p.parse_args(argv)
    global GRID
    if a.grid_limit:
        GRID = GRID[: a.grid_limit]
    LOCO_DATA, RUNS, FOLDS, EPOCHS, EPOCH_QUERIES = Path(a.data_dir), Path(a.runs_dir), Path(a.folds_dir), a.epochs, a.epoch_queries
    CACHE = RUNS / "cache" if a.runs_dir != str(WORK / "loco-runs") else CACHE
    # Many small operations: one thread is faster than two on a shared machine (TWBERT_THREADS overrides).
    torch.set_num_threads(int(os.environ.get("TWBERT_THREADS", "1")))
    logf = Path(a.log)
    if not Path(a.encoder).exists():
        raise SystemExit(f"loco: no pre-trained encoder at {a.encoder} (run `python3 -m model.twbert.train pretrain` first)")
    encoder = load_encoder(Path(a.encoder))
    t = time.time()
    data = {n: load_collection(n, encoder) for n in TRAINING + REPORTING}
    log(logf, f"loco: {', '.join(f'{n} {len(v)}' for n, v in data.items())} queries ({time.time() - t:.0f} s), device {DEVICE}")
    results, uniform = rotate(data, a.seed, logf)
    table = {}
    for k in TRAINING:
        mean, knobs, epochs = choose(results, k)
        names = [n for n in TRAINING if n != k]
        gain = results[run_key(names, knobs)][epochs - 1][k]
        table[k] = {"knobs": knobs, "epochs": epochs, "others": mean, "gain": gain}
        log(logf, f"left out {k}: chose {knobs} x{epochs} (mean on the other six {mean:+.4f}) -> its gain {gain:+.4f}")
    log(logf, f"LOCO mean gain {np.mean([v['gain'] for v in table.values()]):+.4f}")
    mean, knobs, epochs = choose(results, None)
    log(logf, f"shipped configuration: {knobs} x{epochs} (rotation mean {mean:+.4f})")
    (RUNS / "selection.json").write_text(json.dumps({"outer": table, "shipped": {"knobs": knobs, "epochs": epochs, "rotation": mean},
                                                     "uniform": uniform}, indent=1))
    if a.stage in ("folds", "ship"):
        # The fold models of `querylens eval-model --loco`: each left-out collection's train-on-six model with the
        # configuration chosen on the other six (never on the collection itself).
        FOLDS.mkdir(parents=True, exist_ok=True)
        for k, v in table.items():
            saved = load_own(RUNS / f"fold.{k}.{GRID.index(v['knobs'])}.pt")
            others = [n for n in TRAINING if n != k]
            torch.save({"state": saved["states"][v["epochs"] - 1], "head": saved["head"], "knobs": v["knobs"], "epochs": v["epochs"],
                        "encoder": a.encoder, "provenance": provenance(others, others),
                        "description": f"{DESCRIPTION}; fold model: trained and selected without {k}"}, FOLDS / f"{k}.pt")
        expansion = choose_expansion(encoder, uniform, logf)
    if a.stage == "ship":
        model, _ = train(data, TRAINING, knobs, epochs, a.seed)
        model = model.cpu()
        torch.save({"state": model.state_dict(), "head": model.head_config(), "knobs": knobs, "epochs": epochs,
                    "encoder": a.encoder, "provenance": provenance(TRAINING, TRAINING), "expansionScale": expansion,
                    "description": DESCRIPTION}, a.out)
        for n in REPORTING:
            uni = map_of(data[n], uniform_weights)
            log(logf, f"reporting {n}: uniform {uni:.4f} model {model_map(model.to(DEVICE), data[n]):.4f}")


if __name__ == "__main__":
    main()
