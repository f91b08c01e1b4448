"""DeepCT-Index (issue 16 item 7; Dai & Callan 2019, "Context-Aware Sentence/Passage Term Importance Estimation for
First Stage Retrieval", and 2020, "Context-Aware Document Term Weighting for Ad-Hoc Search"): a document model that
reads a document in context and regresses, for every document term, its query term recall
QTR(t, d) = |{q relevant to d : t ∈ q}| / |{q relevant to d}|. At indexing time tf′(t, d) = round(100 · ŵ), terms at
tf′ = 0 are dropped, and the index is searched with BM25 over tf′ with its own k1 and b.

Data (`node model/deepct-index-export.mjs`, from the engine: one analyser; server/model/deepct-index-encode.ts): every
document's windows of the encoder's max length (overlapping by half; each word occurrence read in the window where
it sits furthest from an edge) and, for each training collection, the QTR target of every term of every document
with a relevant query. A word's prediction is its first wordpiece's; a term's weight is the largest over its
occurrences. Training: MSE of each word occurrence's prediction to its term's QTR.

Model: the shared pre-trained encoder (model/.work/pretrained.pt, fine-tuned) and a per-token linear regression head.

Selection (leave-one-collection-out, as loco.py): a configuration is (epochs, k1, b). Every fold model is trained on
six training collections; after every epoch its held-out collection is indexed (tf′) and ranked with BM25 at every
(k1, b) of the grid. The configuration reported for collection k is the one with the best mean MAP gain over uniform
BM25 on the *other* six held-out collections; k's own figure never takes part in choosing it. The shipped model is
trained on all seven with the configuration that has the best mean gain over all seven. SciFact test and NFCorpus
test never train or select anything. The MAP here is a Python BM25 over the exported tf′ for choosing; the reported
figures are the engine's (`querylens eval-model --deepct-index`).

  /usr/bin/python3 -m model.twbert.deepct_index rotate   # fold models, selection -> model/.work/deepct-index/
  /usr/bin/python3 -m model.twbert.deepct_index ship     # the model on all seven -> model/artifacts/deepct-index.onnx

Training uses CUDA when torch.cuda.is_available(), the same recipe on the CPU otherwise.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .common import DEVICE, ARTIFACTS, MODEL_DIR, WORK, seed_all, setup_threads
from .model import Encoder, EncoderConfig

TRAINING = ["cacm", "scifact-train", "cranfield", "adi", "lisa", "time", "nfcorpus-dev"]
REPORTING = ["scifact-test", "nfcorpus-test"]
# DEEPCT_INDEX_HOME moves the data, runs and fold checkpoints (a copy on another machine, e.g. a GPU host).
HOME = Path(os.environ.get("DEEPCT_INDEX_HOME", str(WORK / "deepct-index")))
DATA = HOME / "data"
EPOCHS = 4
LR = 2e-4
BATCH = 32
SEED = 11
SCALE = 100
K1_GRID = (1.2, 3.0, 6.0, 10.0, 18.0)
B_GRID = (0.3, 0.6, 0.75, 0.9)
K3 = 8.0
UNIFORM = (1.2, 0.75)
ONNX_NAME = "deepct-index.onnx"
CONFIG_NAME = "deepct-index.json"
FIXTURE = MODEL_DIR.parent / "test" / "model" / "fixtures" / "parity-deepct-index.json"


class DeepCTIndex(nn.Module):
    """Encoder + per-token linear regression head: token_weights [B,T] (a word reads its first wordpiece's)."""

    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.encoder = Encoder(cfg)
        self.head = nn.Linear(cfg.hidden, 1)

    def forward(self, ids, attention_mask):
        return self.head(self.encoder(ids, attention_mask)).squeeze(-1)


TINY = EncoderConfig(embedding_dim=8, hidden=16, layers=1, heads=2, ffn=32, max_tokens=128, dropout=0.0)


def new_model(init: Path) -> DeepCTIndex:
    """The pre-trained encoder of checkpoint `init` with a fresh head; `init` = "tiny": a tiny random encoder (smoke tests)."""
    if str(init) == "tiny":
        seed_all(SEED)
        model = DeepCTIndex(TINY)
        model.encoder.word.weight.requires_grad_(False)
        return model
    ck = torch.load(init, map_location="cpu")
    model = DeepCTIndex(EncoderConfig(**ck["cfg"]))
    model.encoder.load_state_dict({k[len("encoder."):]: v for k, v in ck["state"].items() if k.startswith("encoder.")})
    nn.init.normal_(model.head.weight, 0.0, 0.01)
    nn.init.constant_(model.head.bias, 0.1)
    # The wordpiece embedding stays the pre-trained one: a per-word table learned from a few thousand judged
    # documents would key the weights on the training vocabulary (issue 16 asks for no table keyed by word identity).
    model.encoder.word.weight.requires_grad_(False)
    return model


def save_checkpoint(model: DeepCTIndex, path: Path, **extra) -> None:
    """The trained parameters (the frozen embedding is the pre-trained one and is not repeated) as .npz, which any
    torch and numpy version reads; `load_checkpoint` rebuilds the model from it and the pre-trained encoder."""
    state = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items() if k != "encoder.word.weight"}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **state, __meta__=np.array(json.dumps(extra)))


def load_checkpoint(path: Path, init: Path) -> tuple[DeepCTIndex, dict]:
    model = new_model(init)
    z = np.load(path)
    state = model.state_dict()
    for k in z.files:
        if k != "__meta__":
            state[k] = torch.from_numpy(z[k])
    model.load_state_dict(state)
    return model, json.loads(str(z["__meta__"]))


# ------------------------------------------------------------------------------------------------ data

class Corpus:
    """A corpus export: per document its terms and windows (ids, first-piece positions, term indices)."""

    def __init__(self, name: str):
        self.name = name
        self.docnos, self.terms, self.windows = [], [], []
        with open(DATA / f"corpus-{name}.jsonl", encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                self.docnos.append(r["docno"])
                self.terms.append(r["terms"])
                self.windows.append([(w["ids"], w["pos"], w["term"]) for w in r["windows"]])
        self.index = {d: i for i, d in enumerate(self.docnos)}

    def counts(self, d: int) -> np.ndarray:
        """tf of each of document d's terms (its word occurrences)."""
        tf = np.zeros(len(self.terms[d]))
        for _ids, _pos, term in self.windows[d]:
            np.add.at(tf, term, 1)
        return tf


@functools.cache
def corpus(name: str) -> Corpus:
    return Corpus(name)


def query_set(collection: str) -> dict:
    with open(DATA / f"{collection}.json", encoding="utf-8") as f:
        return json.load(f)


def read_qrels(collection: str, path: str) -> dict[str, dict[str, int]]:
    """The collection's qrels: the exported path, or DEEPCT_INDEX_QRELS/<collection>.txt (a copy on another machine)."""
    if os.environ.get("DEEPCT_INDEX_QRELS"):
        path = str(Path(os.environ["DEEPCT_INDEX_QRELS"]) / f"{collection}.txt")
    out: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if len(p) >= 4:
                out.setdefault(p[0], {})[p[2]] = int(p[3])
    return out


def training_windows(collections: list[str]) -> list[tuple[list[int], list[int], list[float]]]:
    """Every window of every document with a QTR target in these collections: (ids, positions, targets)."""
    out = []
    for c in collections:
        qs = query_set(c)
        corp = corpus(qs["corpus"])
        for docno, row in qs["qtr"].items():
            d = corp.index.get(docno)
            if d is None:
                continue
            target = [row.get(t, 0.0) for t in corp.terms[d]]
            for ids, pos, term in corp.windows[d]:
                out.append((ids, pos, [target[t] for t in term]))
    return out


def pad(ids_list: list[list[int]]):
    t = max(len(s) for s in ids_list)
    ids = torch.zeros(len(ids_list), t, dtype=torch.long)
    att = torch.zeros(len(ids_list), t, dtype=torch.long)
    for i, s in enumerate(ids_list):
        ids[i, : len(s)] = torch.tensor(s)
        att[i, : len(s)] = 1
    return ids, att


# ------------------------------------------------------------------------------------------------ training

def train_epoch(model: DeepCTIndex, opt, windows, rng: random.Random) -> float:
    model.train()
    order = list(range(len(windows)))
    rng.shuffle(order)
    total, n = 0.0, 0
    for i in range(0, len(order), BATCH):
        chunk = [windows[j] for j in order[i : i + BATCH]]
        ids, att = pad([c[0] for c in chunk])
        rows = torch.cat([torch.full((len(c[1]),), k, dtype=torch.long) for k, c in enumerate(chunk)])
        cols = torch.cat([torch.tensor(c[1], dtype=torch.long) for c in chunk])
        target = torch.cat([torch.tensor(c[2], dtype=torch.float32) for c in chunk])
        out = model(ids.to(DEVICE), att.to(DEVICE))
        loss = ((out[rows.to(DEVICE), cols.to(DEVICE)] - target.to(DEVICE)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += float(loss) * len(target)
        n += len(target)
    return total / max(1, n)


@torch.no_grad()
def term_weights(model: DeepCTIndex, corp: Corpus, batch: int = 128) -> list[np.ndarray]:
    """Per document, each term's weight: the largest of its occurrences' first-wordpiece outputs."""
    model.eval()
    flat = [(d, ids, pos, term) for d, ws in enumerate(corp.windows) for ids, pos, term in ws]
    flat.sort(key=lambda x: len(x[1]))
    weights = [np.full(len(t), -np.inf) for t in corp.terms]
    for i in range(0, len(flat), batch):
        chunk = flat[i : i + batch]
        ids, att = pad([c[1] for c in chunk])
        out = model(ids.to(DEVICE), att.to(DEVICE)).float().cpu().numpy()
        for k, (d, _ids, pos, term) in enumerate(chunk):
            np.maximum.at(weights[d], term, out[k, pos])
    return weights


# How a term's weight w becomes its integer tf′ (server/model/deepct-index-encode.ts integerImpacts). "impact" is the
# paper's: tf′ = round(100 w), terms at 0 dropped, the document's counts replaced. The count-keeping forms scale the
# count instead: tf′ = round(scale · tf · (1 + tfAlpha · max(w, 0))), no term dropped; the head-only rotation chooses
# the form per fold with the epochs and k1/b. The three (scale, tfAlpha) pairs were fixed before any of them was
# measured: alpha 100 matches the paper's resolution, 10 and 1 give the count more room; scale 10 keeps the tenths of
# the last (BM25 is the same under a common scale of tf′ with k1 scaled alike, so scale only sets the rounding).
FORMS = {
    "impact": {"scale": SCALE},
    "tf-a100": {"scale": 1, "tfAlpha": 100},
    "tf-a10": {"scale": 1, "tfAlpha": 10},
    "tf-a1": {"scale": 10, "tfAlpha": 1},
}


def impacts(weights: list[np.ndarray], counts: list[np.ndarray] | None = None, form: str = "impact") -> list[np.ndarray]:
    """tf′ of every document's terms in `form` (FORMS), as the runtime computes it (Math.round: half up); 0 = dropped."""
    f = FORMS[form]
    if "tfAlpha" not in f:
        return [np.maximum(np.floor(f["scale"] * w + 0.5), 0.0) for w in weights]
    if counts is None:
        raise ValueError(f"the {form} form needs the documents' term counts")
    return [np.floor(f["scale"] * tf * (1 + f["tfAlpha"] * np.maximum(w, 0.0)) + 0.5) for w, tf in zip(weights, counts)]


def form_grid(rk: "Ranker", weights: list[np.ndarray], counts: list[np.ndarray], forms: list[str]) -> dict[str, float]:
    """MAP at every (form, k1, b): the rotation's configurations for one epoch of one fold."""
    return {config_key(form, k1b): m for form in forms for k1b, m in rk.grid(impacts(weights, counts, form)).items()}


def fold_exists(out: Path, forms: list[str]) -> bool:
    """A fold already run (an interrupted rotation resumes), refused when it ran over other forms than asked."""
    if not out.exists():
        return False
    ran = {parse_config_key(k)[0] for grid in json.loads(out.read_text())["epochs"].values() for k in grid}
    if ran != set(forms):
        raise SystemExit(f"deepct_index: {out} holds the forms {sorted(ran)}, not --forms {','.join(forms)}: "
                         "remove it (or the folder) to run the fold again")
    return True


def config_key(form: str, k1b: str) -> str:
    """A rotation configuration's key: "k1,b" for the paper's form (as runs before the forms existed), "form|k1,b" else."""
    return k1b if form == "impact" else f"{form}|{k1b}"


def parse_config_key(key: str) -> tuple[str, float, float]:
    form, _, k1b = key.rpartition("|")
    k1, b = (float(x) for x in k1b.split(","))
    return form or "impact", k1, b


# ------------------------------------------------------------------------------------------------ evaluation

class Ranker:
    """Terrier BM25 (SEMANTICS.md §4.1; bm25.py) of a collection's queries over given per-document term counts,
    restricted to the query terms; AP at depth 1000 against the qrels."""

    def __init__(self, collection: str):
        qs = query_set(collection)
        self.corp = corpus(qs["corpus"])
        qrels = read_qrels(collection, qs["qrels"])
        self.queries = [q for q in qs["queries"] if q["terms"] and any(g > 0 for g in qrels.get(q["qid"], {}).values())]
        self.rel = [{d for d, g in qrels[q["qid"]].items() if g > 0} for q in self.queries]
        vocab: dict[str, int] = {}
        for q in self.queries:
            for t in q["terms"]:
                vocab.setdefault(t, len(vocab))
        self.vocab = vocab
        qw = np.zeros((len(self.queries), len(vocab)))
        for i, q in enumerate(self.queries):
            for t in q["terms"]:
                qw[i, vocab[t]] += 1
        qtw = qw / qw.max(1, keepdims=True)
        self.qfactor = np.where(qw > 0, (K3 + 1) * qtw / (K3 + qtw), 0.0).astype(np.float32)
        self.rel_mask = np.zeros((len(self.queries), len(self.corp.docnos)), dtype=bool)
        for i, r in enumerate(self.rel):
            for d in r:
                j = self.corp.index.get(d)
                if j is not None:
                    self.rel_mask[i, j] = True
        self.n_rel = np.array([len(r) for r in self.rel], dtype=np.float64)

    def matrix(self, counts: list[np.ndarray]):
        """[D, V] counts of the query vocabulary, and every document's length (the sum of all its counts)."""
        m = np.zeros((len(self.corp.docnos), len(self.vocab)))
        dl = np.zeros(len(self.corp.docnos))
        for d, c in enumerate(counts):
            dl[d] = c.sum()
            for t, v in zip(self.corp.terms[d], c):
                j = self.vocab.get(t)
                if j is not None and v > 0:
                    m[d, j] = v
        return m, dl

    def mean_ap(self, m: np.ndarray, dl: np.ndarray, k1: float, b: float) -> float:
        n = len(dl)
        avgdl = max(dl.sum() / n, 1e-9)
        df = (m > 0).sum(0)
        idf = np.log2((n - df + 0.5) / (df + 0.5))
        norm = k1 * ((1 - b) + b * dl / avgdl)
        tfn = np.where(m > 0, (k1 + 1) * m / (norm[:, None] + m), 0.0).astype(np.float32)
        scores = (self.qfactor * idf[None, :].astype(np.float32)) @ tfn.T  # [Q, D]
        scores = np.where(self.matched(m), scores, -np.inf)
        depth = min(1000, n)
        # The top `depth` by score, ties broken by document order (a stable sort of the partitioned candidates).
        part = np.argpartition(-scores, depth - 1, axis=1)[:, :depth] if depth < n else np.tile(np.arange(n), (len(scores), 1))
        part.sort(axis=1)
        top = np.take_along_axis(part, np.argsort(-np.take_along_axis(scores, part, 1), axis=1, kind="stable"), 1)
        hits_all = np.take_along_axis(self.rel_mask, top, 1) & np.isfinite(np.take_along_axis(scores, top, 1))
        prec = np.cumsum(hits_all, 1) / np.arange(1, depth + 1)[None, :]
        aps = (prec * hits_all).sum(1) / self.n_rel
        return float(aps.mean())

    def matched(self, m: np.ndarray) -> np.ndarray:
        """[Q, D]: the document holds a query term (the engine retrieves it); cached per count matrix."""
        if getattr(self, "_matched_of", None) is not m:
            self._matched_of = m
            self._matched = (self.qfactor > 0).astype(np.float32) @ (m > 0).T.astype(np.float32) > 0
        return self._matched

    @functools.cached_property
    def counts(self) -> list[np.ndarray]:
        """Every document's term counts (uniform BM25's tf, and what the count-keeping tf′ forms scale)."""
        return [self.corp.counts(d) for d in range(len(self.corp.docnos))]

    def uniform(self) -> float:
        m, dl = self.matrix(self.counts)
        return self.mean_ap(m, dl, *UNIFORM)

    def grid(self, tf: list[np.ndarray]) -> dict[str, float]:
        m, dl = self.matrix(tf)
        return {f"{k1},{b}": self.mean_ap(m, dl, k1, b) for k1 in K1_GRID for b in B_GRID}


@functools.cache
def ranker(collection: str) -> Ranker:
    return Ranker(collection)


# ------------------------------------------------------------------------------------------------ rotation

def log(msg: str) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    with open(HOME / "deepct-index.log", "a", encoding="utf-8") as f:
        f.write(line + "\n")


def train(collections: list[str], epochs: int, init: Path, on_epoch=None, max_windows: int | None = None) -> DeepCTIndex:
    seed_all(SEED)
    rng = random.Random(SEED)
    model = new_model(init).to(DEVICE)
    windows = training_windows(collections)
    if max_windows is not None:
        windows = windows[:max_windows]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LR, weight_decay=0.01)
    log(f"training on {', '.join(collections)}: {len(windows)} windows, {sum(len(w[1]) for w in windows)} words, {DEVICE}")
    for e in range(1, epochs + 1):
        t0 = time.time()
        mse = train_epoch(model, opt, windows, rng)
        log(f"  epoch {e}: mse {mse:.4f} ({time.time() - t0:.0f} s)")
        if on_epoch:
            on_epoch(e, model)
    return model


def run_folds(args, runs_name: str, recipe: str, fit, weights_of, save) -> None:
    """Leave-one-collection-out: for each held-out collection, `fit(left, others, on_epoch)` trains on the other training
    collections and calls on_epoch(e, model) after every epoch, which ranks the held-out corpus by `weights_of(model,
    left)` in every tf′ form at every k1/b and saves the epoch's model (`save(model, left, e)`); each fold's figures go to
    HOME/<runs_name>/<left>.json, so an interrupted rotation resumes."""
    runs = HOME / runs_name
    runs.mkdir(parents=True, exist_ok=True)
    for left in args.collections:
        out = runs / f"{left}.json"
        if fold_exists(out, args.forms):
            continue
        rk = ranker(left)
        result = {"left": left, "uniform": rk.uniform(), "epochs": {}}
        log(f"fold {left}{recipe}: uniform BM25 MAP {result['uniform']:.4f}; tf' forms {', '.join(args.forms)}")

        def on_epoch(e, model):
            result["epochs"][str(e)] = form_grid(rk, weights_of(model, left), rk.counts, args.forms)
            best = max(result["epochs"][str(e)].items(), key=lambda kv: kv[1])
            log(f"  {left} epoch {e}: best k1,b {best[0]} MAP {best[1]:.4f}")
            save(model, left, e)

        fit(left, [c for c in TRAINING if c != left], on_epoch)
        out.write_text(json.dumps(result, indent=1))


def rotate(args) -> None:
    """The fine-tuned recipe's rotation (Dai & Callan's: the encoder trained too)."""
    run_folds(
        args, "runs", "",
        fit=lambda left, others, on_epoch: train(others, EPOCHS, Path(args.init), on_epoch, args.max_windows),
        weights_of=lambda model, left: term_weights(model, ranker(left).corp),
        save=lambda model, left, e: save_checkpoint(model, HOME / "folds" / left / f"epoch{e}.npz", epoch=e, left=left),
    )
    select(args)


def gains(run: dict) -> dict[tuple[int, str], float]:
    return {(int(e), kb): m / run["uniform"] - 1 for e, grid in run["epochs"].items() for kb, m in grid.items()}


def select(args, runs_dir: str = "runs", selection: str = "selection.json") -> dict:
    """Each held-out collection's configuration, chosen on the other folds' held-out figures, and the shipped one."""
    found = {c: HOME / runs_dir / f"{c}.json" for c in TRAINING}
    runs = {c: json.loads(f.read_text()) for c, f in found.items() if f.exists()}
    g = {c: gains(r) for c, r in runs.items()}
    configs = set.intersection(*(set(x) for x in g.values())) if g else set()
    table = {}
    for c in runs:
        others = [o for o in runs if o != c]
        if not others:
            continue
        choice = max(sorted(configs), key=lambda cfg: sum(g[o][cfg] for o in others) / len(others))
        table[c] = {"epochs": choice[0], "k1b": choice[1], "map": runs[c]["epochs"][str(choice[0])][choice[1]],
                    "uniform": runs[c]["uniform"], "gain": g[c][choice]}
        log(f"{c}: chosen on the other {len(others)}: epochs {choice[0]}, k1,b {choice[1]}; MAP {table[c]['map']:.4f} "
            f"vs uniform {table[c]['uniform']:.4f} ({100 * table[c]['gain']:+.1f}%)")
    ship = max(sorted(configs), key=lambda cfg: sum(g[o][cfg] for o in runs) / len(runs)) if configs else None
    summary = {"folds": table, "ship": {"epochs": ship[0], "k1b": ship[1]} if ship else None,
               "complete": sorted(runs) == sorted(TRAINING)}
    if table:
        log(f"mean gain over the {len(table)} held-out collections: {100 * sum(t['gain'] for t in table.values()) / len(table):+.2f}%")
    if ship:
        log(f"shipped configuration (best mean over all {len(runs)}): epochs {ship[0]}, k1,b {ship[1]}")
    (HOME / selection).write_text(json.dumps(summary, indent=1))
    return summary


# ------------------------------------------------------------------------------------------------ export

def export_onnx(model: DeepCTIndex, out: Path) -> None:
    model = model.cpu().eval()
    for p in model.parameters():
        # torch 1.13's TransformerEncoderLayer takes an unexportable fused path under no_grad in eval mode.
        p.requires_grad_(True)
    ids, att = pad([[101, 2023, 2003, 1037, 3231, 102], [101, 7592, 102]])
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (ids, att), str(out), opset_version=14, input_names=["input_ids", "attention_mask"],
                      output_names=["token_weights"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
                                    "token_weights": {0: "batch", 1: "tokens"}}, do_constant_folding=True)


def write_config(out_dir: Path, k1: float, b: float, epochs: int, trained_on: list[str], selected_on: list[str], note: str,
                 form: str = "impact") -> None:
    f = FORMS[form]
    rule = "tf' = round(100 w)" if "tfAlpha" not in f else f"tf' = round({f['scale']} tf (1 + {f['tfAlpha']} max(w, 0)))"
    config = {
        "file": ONNX_NAME, "tokenizer": "tokenizer.json", "maxTokens": 128, "profile": "terrier", **f,
        "inputs": {"ids": "input_ids", "attentionMask": "attention_mask"}, "output": "token_weights",
        "bm25": {"k1": k1, "b": b}, "epochs": epochs,
        "description": f"DeepCT-Index: per-term query term recall regression, {rule} (querylens)",
        "provenance": {"trainedOn": trained_on, "selectedOn": selected_on, "corporaRead": ["cacm", "scifact"], "note": note},
    }
    (out_dir / CONFIG_NAME).write_text(json.dumps(config, indent=2) + "\n")


def fixture_path(out_dir: Path) -> Path:
    """Where a shipped model's parity fixture goes: the test fixtures for model/artifacts (what the tests check), beside
    the model for any other folder (an experiment's model never overwrites the fixtures in the tree)."""
    return FIXTURE if out_dir.resolve() == ARTIFACTS.resolve() else out_dir / "parity.json"


def write_fixture(model: DeepCTIndex, path: Path, lengths=(126, 40, 7)) -> None:
    """PyTorch's token weights for fixed windows, which test/model/deepct-index.test.ts checks the ONNX runtime against."""
    model = model.cpu().eval()
    g = torch.Generator().manual_seed(5)
    seqs = [[101] + torch.randint(1000, 30000, (n,), generator=g).tolist() + [102] for n in lengths]
    ids, att = pad(seqs)
    with torch.no_grad():
        out = model(ids, att)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"ids": seqs, "weights": [out[i, : len(s)].tolist() for i, s in enumerate(seqs)]}) + "\n")


def export_folds(args) -> None:
    """Each held-out collection's fold model, at the epochs chosen for it, as a model folder eval-model reads."""
    sel = json.loads((HOME / "selection.json").read_text())
    for c, t in sel["folds"].items():
        form, k1, b = parse_config_key(t["k1b"])
        model, _ = load_checkpoint(HOME / "folds" / c / f"epoch{t['epochs']}.npz", Path(args.init))
        out = HOME / "fold-models" / c
        export_onnx(model, out / ONNX_NAME)
        import shutil
        shutil.copy(ARTIFACTS / "tokenizer.json", out / "tokenizer.json")
        others = [o for o in TRAINING if o != c]
        write_config(out, k1, b, t["epochs"], others, others, f"fold model: {c} left out of training and selection", form)
        log(f"fold model {c} -> {out}")


def ship_config(args) -> tuple[int, str, float, float]:
    sel = select(args)
    if not sel["complete"]:
        raise SystemExit("ship: the rotation is not complete (model/.work/deepct-index/runs/): run `rotate` first")
    form, k1, b = parse_config_key(sel["ship"]["k1b"])
    return sel["ship"]["epochs"], form, k1, b


def ship_train(args) -> None:
    """The shipped model: all seven training collections, the epochs the rotation chose (HOME/deepct-index.npz)."""
    epochs, _form, _k1, _b = ship_config(args)
    model = train(TRAINING, epochs, Path(args.init), max_windows=args.max_windows)
    save_checkpoint(model, HOME / "deepct-index.npz", epochs=epochs, trainedOn=TRAINING)


def ship(args) -> None:
    """Exports the shipped model (training it first unless HOME/deepct-index.npz holds it) with its BM25 k1/b."""
    epochs, form, k1, b = ship_config(args)
    path = HOME / "deepct-index.npz"
    if not path.exists() or load_checkpoint(path, Path(args.init))[1].get("epochs") != epochs:
        ship_train(args)
    model, _ = load_checkpoint(path, Path(args.init))
    out = Path(args.out_dir)
    export_onnx(model, out / ONNX_NAME)
    write_config(out, k1, b, epochs, TRAINING, TRAINING, "trained on all seven training collections with the epochs, tf' form and BM25 k1/b the leave-one-collection-out rotation chose", form)
    write_fixture(model, fixture_path(out))
    log(f"shipped: {out / ONNX_NAME}, {form}, k1 {k1}, b {b}, {epochs} epochs")


def pack(args) -> None:
    """What a run on another machine hands back, in at most a few files under --out-dir: results.tar (runs,
    selection, log) and checkpoints.tar (each fold's chosen epoch and the shipped model, .npz)."""
    import tarfile
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out / "results.tar", "w") as t:
        for f in [*sorted((HOME / "runs").glob("*.json")), HOME / "selection.json", HOME / "deepct-index.log"]:
            if f.exists():
                t.add(f, arcname=str(f.relative_to(HOME)))
    sel = json.loads((HOME / "selection.json").read_text()) if (HOME / "selection.json").exists() else {"folds": {}}
    with tarfile.open(out / "checkpoints.tar", "w") as t:
        for c, choice in sel["folds"].items():
            f = HOME / "folds" / c / f"epoch{choice['epochs']}.npz"
            if f.exists():
                t.add(f, arcname=str(f.relative_to(HOME)))
        if (HOME / "deepct-index.npz").exists():
            t.add(HOME / "deepct-index.npz", arcname="deepct-index.npz")


TINY_FIXTURE = MODEL_DIR.parent / "test" / "model" / "fixtures" / "deepct-index-tiny"


def tiny_fixture(args) -> None:
    """A tiny, randomly initialised document model (seeded) for the Node tests: its ONNX file, config and PyTorch's
    token weights for fixed windows (ONNX = PyTorch parity; test/model/deepct-index.test.ts). Not a trained model."""
    seed_all(7)
    cfg = EncoderConfig(embedding_dim=8, hidden=16, layers=1, heads=2, ffn=32, max_tokens=32, dropout=0.0)
    model = DeepCTIndex(cfg)
    nn.init.normal_(model.head.weight, 0.0, 0.3)
    nn.init.constant_(model.head.bias, 0.1)
    out = TINY_FIXTURE
    export_onnx(model, out / ONNX_NAME)
    write_config(out, 1.2, 0.75, 0, [], [], "a randomly initialised test fixture, not a trained model")
    config = json.loads((out / CONFIG_NAME).read_text())
    config["maxTokens"] = cfg.max_tokens
    (out / CONFIG_NAME).write_text(json.dumps(config, indent=2) + "\n")
    write_fixture(model, out / "parity.json", lengths=(30, 12, 3))
    print(f"wrote {out}")


# ------------------------------------------------------------------------------------------------ the head-only recipe
# The encoder stays the pre-trained one and only the regression head learns (a two-layer MLP on each word's
# first-wordpiece state): the encoder's states are computed once per corpus and cached, so the whole rotation runs
# on a CPU. The same recipe runs on CUDA when present. `rotate` above fine-tunes the encoder too (Dai & Callan's
# recipe), which needs a GPU for these collections.

HEAD_HIDDEN = 64
HEAD_EPOCHS = 4
HEAD_LR = 3e-3
HEAD_BATCH = 8192
TRAINING_CORPORA = ["cacm", "scifact", "cranfield", "adi", "lisa", "time", "nfcorpus-dev"]


class Head(nn.Module):
    def __init__(self, hidden: int = 128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(hidden, HEAD_HIDDEN), nn.GELU(), nn.Linear(HEAD_HIDDEN, 1))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.constant_(self.net[-1].bias, 0.1)

    def forward(self, x):
        return self.net(x).squeeze(-1)


def frozen_features(name: str, init: Path, batch: int = 128, targets_only: bool = False) -> dict:
    """Per word occurrence of corpus `name`: its document, its term index and the pre-trained encoder's state at its
    first wordpiece (float16), cached in HOME/features/. `targets_only`: only the documents with a QTR target in a
    training collection of this corpus (enough to train on, not to rank the corpus)."""
    full = HOME / "features" / f"{name}.pt"
    path = HOME / "features" / f"{name}.targets.pt" if targets_only else full
    if full.exists():
        return torch.load(full)
    if path.exists():
        return torch.load(path)
    encoder = new_model(init).encoder.to(DEVICE).eval()
    corp = corpus(name)
    keep = None
    if targets_only:
        sets = [json.loads(f.read_text()) for f in sorted(DATA.glob("*.json"))]
        keep = {corp.index[d] for qs in sets if qs["corpus"] == name for d in qs.get("qtr") or {} if d in corp.index}
    flat = [(d, ids, pos, term) for d, ws in enumerate(corp.windows) if keep is None or d in keep for ids, pos, term in ws]
    flat.sort(key=lambda x: len(x[1]))
    docs, terms, feats = [], [], []
    t0 = time.time()
    with torch.no_grad():
        for i in range(0, len(flat), batch):
            chunk = flat[i : i + batch]
            ids, att = pad([c[1] for c in chunk])
            states = encoder(ids.to(DEVICE), att.to(DEVICE))
            for k, (d, _ids, pos, term) in enumerate(chunk):
                feats.append(states[k, pos].half().cpu())
                docs.append(torch.full((len(pos),), d, dtype=torch.int32))
                terms.append(torch.tensor(term, dtype=torch.int32))
    out = {"doc": torch.cat(docs), "term": torch.cat(terms), "feat": torch.cat(feats)}
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(out, path)
    log(f"features of {name}: {len(out['doc'])} word occurrences in {time.time() - t0:.0f} s")
    return out


_examples: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}


def collection_examples(c: str, init: Path) -> tuple[torch.Tensor, torch.Tensor]:
    """The word occurrences of collection c's documents with a QTR target: their features and targets (cached)."""
    if c not in _examples:
        qs = query_set(c)
        corp = corpus(qs["corpus"])
        f = frozen_features(qs["corpus"], init, targets_only=True)
        docs, terms = f["doc"].numpy(), f["term"].numpy()
        order = np.argsort(docs, kind="stable")
        bounds = np.searchsorted(docs[order], np.arange(len(corp.terms) + 1))
        rows, ys = [], []
        for docno, row in qs["qtr"].items():
            d = corp.index.get(docno)
            if d is None:
                continue
            idx = order[bounds[d] : bounds[d + 1]]
            rows.append(idx)
            ys.append(np.array([row.get(corp.terms[d][t], 0.0) for t in terms[idx]], dtype=np.float32))
        sel = torch.from_numpy(np.concatenate(rows).astype(np.int64))
        _examples[c] = (f["feat"][sel], torch.from_numpy(np.concatenate(ys)))
    return _examples[c]


def head_examples(collections: list[str], init: Path):
    parts = [collection_examples(c, init) for c in collections]
    return torch.cat([x for x, _ in parts]), torch.cat([y for _, y in parts])


def head_weights(head: Head, name: str, init: Path) -> list[np.ndarray]:
    """Per document of corpus `name`, each term's weight (the largest of its occurrences') under `head`."""
    f = frozen_features(name, init)
    head.eval()
    with torch.no_grad():
        w = torch.cat([head(f["feat"][i : i + 65536].float().to(DEVICE)).cpu() for i in range(0, len(f["doc"]), 65536)]).numpy()
    corp = corpus(name)
    out = [np.full(len(t), -np.inf) for t in corp.terms]
    docs, terms = f["doc"].numpy(), f["term"].numpy()
    order = np.argsort(docs, kind="stable")
    bounds = np.searchsorted(docs[order], np.arange(len(corp.terms) + 1))
    for d in range(len(corp.terms)):
        idx = order[bounds[d] : bounds[d + 1]]
        np.maximum.at(out[d], terms[idx], w[idx])
    return out


def train_head(collections: list[str], epochs: int, init: Path, on_epoch=None) -> Head:
    seed_all(SEED)
    x, y = head_examples(collections, init)
    head = Head(x.shape[1]).to(DEVICE)
    opt = torch.optim.AdamW(head.parameters(), lr=HEAD_LR, weight_decay=0.01)
    g = torch.Generator().manual_seed(SEED)
    log(f"head on {', '.join(collections)}: {len(y)} word occurrences, {DEVICE}")
    for e in range(1, epochs + 1):
        head.train()
        perm = torch.randperm(len(y), generator=g)
        total = 0.0
        for i in range(0, len(y), HEAD_BATCH):
            sel = perm[i : i + HEAD_BATCH]
            loss = ((head(x[sel].float().to(DEVICE)) - y[sel].to(DEVICE)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(sel)
        log(f"  epoch {e}: mse {total / len(y):.4f}")
        if on_epoch:
            on_epoch(e, head)
    return head


def rotate_head(args) -> None:
    """The head-only recipe's rotation: the pre-trained encoder frozen, its states cached once per corpus."""
    init = Path(args.init)

    def fit(left, others, on_epoch):
        frozen_features(query_set(left)["corpus"], init)
        train_head(others, HEAD_EPOCHS, init, on_epoch)

    def save(head, left, e):
        (HOME / "heads" / left).mkdir(parents=True, exist_ok=True)
        torch.save(head.state_dict(), HOME / "heads" / left / f"epoch{e}.pt")

    run_folds(args, "runs-head", " (head only)", fit, lambda head, left: head_weights(head, query_set(left)["corpus"], init), save)
    select_head(args)


def select_head(args) -> dict:
    return select(args, "runs-head", "selection-head.json")


def head_model(head: Head, init: Path) -> DeepCTIndex:
    model = new_model(init)
    model.head = head.net.cpu()
    return model.eval()


def folds_head(args) -> None:
    """Each held-out collection's head-only fold model, at the epochs chosen for it, as a model folder."""
    import shutil
    sel = json.loads((HOME / "selection-head.json").read_text())
    for c, t in sel["folds"].items():
        form, k1, b = parse_config_key(t["k1b"])
        head = Head()
        head.load_state_dict(torch.load(HOME / "heads" / c / f"epoch{t['epochs']}.pt", map_location="cpu"))
        out = HOME / "fold-models-head" / c
        export_onnx(head_model(head, Path(args.init)), out / ONNX_NAME)
        shutil.copy(ARTIFACTS / "tokenizer.json", out / "tokenizer.json")
        others = [o for o in TRAINING if o != c]
        write_config(out, k1, b, t["epochs"], others, others, f"head-only fold model: {c} left out of training and selection", form)
        log(f"head-only fold model {c} -> {out} ({form}, k1 {k1}, b {b}, {t['epochs']} epochs)")


def ship_head(args) -> None:
    """The shipped head-only model: trained on all seven with the epochs and k1/b the head-only rotation chose."""
    sel = select_head(args)
    if not sel["complete"] and not args.allow_partial:
        raise SystemExit("ship-head: the head-only rotation is not complete: run `rotate-head` first (or --allow-partial)")
    ran = sorted(sel["folds"]) if sel["folds"] else []
    epochs = sel["ship"]["epochs"]
    form, k1, b = parse_config_key(sel["ship"]["k1b"])
    head = train_head(TRAINING, epochs, Path(args.init))
    model = head_model(head, Path(args.init))
    out = Path(args.out_dir)
    export_onnx(model, out / ONNX_NAME)
    write_config(out, k1, b, epochs, TRAINING, ran, "head-only recipe (pre-trained encoder frozen), trained on all seven training collections with the epochs and BM25 k1/b chosen by its leave-one-collection-out rotation over "
                 + ("all seven folds" if sel["complete"] else f"the folds that ran ({', '.join(ran)})"), form)
    write_fixture(model, fixture_path(out))
    log(f"shipped (head only): {out / ONNX_NAME}, {form}, k1 {k1}, b {b}, {epochs} epochs")


def features(args) -> None:
    """The frozen encoder's features: whole corpora for the held-out collections named (--collections), and the
    documents with targets of every training collection (what every fold trains on)."""
    for c in args.collections:
        frozen_features(query_set(c)["corpus"], Path(args.init))
    for c in TRAINING:
        frozen_features(query_set(c)["corpus"], Path(args.init), targets_only=True)


def smoke(args) -> None:
    """The whole recipe on a few windows of the first --collections and one epoch (test/model/deepct-index.test.ts):
    trains, ranks at every k1/b of the grid, exports ONNX, config and a parity fixture."""
    out = Path(args.out_dir)
    name = args.collections[0]
    model = train([name], 1, Path(args.init), max_windows=args.max_windows or 16)
    grid = ranker(name).grid(impacts(term_weights(model, ranker(name).corp)))
    export_onnx(model, out / ONNX_NAME)
    write_config(out, 1.2, 0.75, 1, [name], [], "smoke test")
    write_fixture(model, out / "parity.json", lengths=(60, 9))
    # The head-only recipe: features, one epoch of the head, the grid, and its model as exported.
    head = train_head([name], 1, Path(args.init))
    rk = ranker(name)
    grid_head = form_grid(rk, head_weights(head, query_set(name)["corpus"], Path(args.init)), rk.counts, list(FORMS))
    export_onnx(head_model(head, Path(args.init)), out / "head" / ONNX_NAME)
    # Every tf′ form of a fixed weight and count vector, which the runtime's integerImpacts must reproduce.
    w, tf = np.array([0.355, 0.004, -0.3, 0.0049, 0.125, 0.5, 0.0]), np.array([2.0, 1.0, 1.0, 1.0, 3.0, 7.0, 4.0])
    forms = {name: {"form": f, "weights": w.tolist(), "counts": tf.tolist(), "impacts": impacts([w], [tf], name)[0].tolist()}
             for name, f in FORMS.items()}
    print(json.dumps({"uniform": ranker(name).uniform(), "grid": grid, "gridHead": grid_head, "forms": forms}))


def set_seed(seed: int) -> None:
    global SEED
    SEED = seed


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("stage", choices=["rotate", "select", "folds", "ship-train", "ship", "pack", "smoke", "fixture",
                                      "features", "rotate-head", "select-head", "folds-head", "ship-head"])
    p.add_argument("--init", default=str(WORK / "pretrained.pt"))
    p.add_argument("--collections", default=",".join(TRAINING), help="the folds to run (rotate)")
    p.add_argument("--out-dir", default=str(ARTIFACTS))
    p.add_argument("--max-windows", type=int, default=None, help="train on the first N windows only (smoke runs)")
    p.add_argument("--seed", type=int, default=SEED, help="the training seed (the shipped recipe's is 11); a seed's runs want their own DEEPCT_INDEX_HOME")
    p.add_argument("--forms", default=",".join(FORMS),
                   help="rotate, rotate-head: the tf' forms the rotation chooses among (FORMS; `impact` alone is the paper's)")
    p.add_argument("--allow-partial", action="store_true", help="ship-head: ship from the folds that ran, saying so in the provenance")
    a = p.parse_args(argv)
    set_seed(a.seed)
    a.collections = [c for c in a.collections.split(",") if c]
    a.forms = [f for f in a.forms.split(",") if f]
    unknown = [f for f in a.forms if f not in FORMS]
    if unknown or not a.forms:
        p.error(f"--forms: unknown {', '.join(unknown) or '(none given)'}; the forms are {', '.join(FORMS)}")
    setup_threads()
    HOME.mkdir(parents=True, exist_ok=True)
    {"rotate": rotate, "select": select, "folds": export_folds, "ship-train": ship_train, "ship": ship, "pack": pack, "smoke": smoke, "fixture": tiny_fixture,
     "features": features, "rotate-head": rotate_head, "select-head": select_head, "folds-head": folds_head, "ship-head": ship_head}[a.stage](a)


if __name__ == "__main__":
    main()
