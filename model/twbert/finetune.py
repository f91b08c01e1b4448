"""Fine-tuning TW-BERT end to end through the engine's BM25 (TW-BERT §3.2–3.4.2).

Per query: the model predicts one weight per uni-gram and bi-gram occurrence; the weights go through
Terrier BM25 (bm25.py: repeated n-grams SUM, max-normalised qtw, k1=1.2, b=0.75, k3=8, exact #1
bi-gram statistics) for a sample of candidate documents (the judged relevant ones plus negatives from
the engine's uniform BM25 top 1000); the sampled scores are divided by their maximum, passed through a
maxout layer (L = 12 pieces) and compared with the graded labels by AMSE, plus ListMLE over the
scaled scores.

Labels (graded weak labels): a judged relevant document's grade divided by the query's top grade
(1 for SciFact/CACM/pseudo-queries); negatives from the uniform BM25 top 1000 (unjudged or judged
non-relevant) are 0.

AMSE (as implemented here; the paper gives d1, d2): with e = |ŝ − y|, loss = 0 when e <= d1 (a dead
zone: small errors are ignored, so weights stay near uniform unless the evidence is strong),
(e − d1)² up to d2, then linear beyond d2 (bounded gradient for gross errors). d1 = 0.2, d2 = 1.

Early stopping on the dev sets (Cranfield, SciFact test): MAP of the weighted re-ranking of the
exported candidates, the mean over both dev sets of the relative change against uniform BM25.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import torch

from . import bm25
from .common import DEVICE, WORK, Timer, cpu_state, log, pad_batch, seed_all, setup_threads, read_jsonl, load_own
from .model import EncoderConfig, TWBert, DeepCT

TRAIN_FILES = ["scifact-train", "cacm", "pseudo-scifact", "pseudo-cacm"]
DEV_FILES = ["dev-cranfield", "dev-scifact-test"]
D1, D2 = 0.2, 1.0
MAXOUT_PIECES = 12
LISTMLE_TEMPERATURE = 10.0


class Maxout(torch.nn.Module):
    """ŝ = max_l (a_l · s + b_l): a learned convex piecewise-linear map from scaled BM25 to labels."""

    def __init__(self, pieces: int = MAXOUT_PIECES):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.a = torch.nn.Parameter(1.0 + 0.1 * torch.randn(pieces, generator=g))
        self.b = torch.nn.Parameter(0.05 * torch.randn(pieces, generator=g) - 0.1)

    def forward(self, s):
        return (s.unsqueeze(-1) * self.a + self.b).max(-1).values


def amse(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    e = (pred - target).abs()
    quad = (e - D1).clamp(min=0.0, max=D2 - D1) ** 2
    lin = 2 * (D2 - D1) * (e - D2).clamp(min=0.0)
    return (quad + lin).mean()


def list_mle(s: torch.Tensor, labels: torch.Tensor, rng: random.Random) -> torch.Tensor:
    """ListMLE (Xia et al. 2008) −log P(label order | scores), top-k form (Xia et al. 2009): only the
    positions of relevant documents contribute. The order among the many 0-labelled negatives is
    arbitrary; including those terms adds a random-permutation loss that drowns the signal."""
    idx = list(range(len(labels)))
    rng.shuffle(idx)
    idx.sort(key=lambda i: -float(labels[i]))
    ordered = s[idx] * LISTMLE_TEMPERATURE
    # log Σ_{j>=i} exp(s_j), from the end.
    rev_lse = torch.logcumsumexp(ordered.flip(0), 0).flip(0)
    k = int((labels > 0).sum())
    return (rev_lse - ordered)[: max(1, k)].mean()


def load_queries(names, unigrams_only=False, max_per_file=None, data_dir=None):
    """Prepared queries of export-training JSONL files. From the default folder (model/.work/train) the
    prepared form is cached next to it (model/.work/cache, keyed by the file's size and mtime): parsing
    the 180 MB of JSON takes minutes on the build machine, loading the cache seconds."""
    out = []
    for name in names:
        path = Path(data_dir or WORK / "train") / f"{name}.jsonl"
        cache = None
        if data_dir is None:
            st = path.stat()
            cache = WORK / "cache" / f"{name}.{int(unigrams_only)}.{max_per_file}.{st.st_size}.{int(st.st_mtime)}.pt"
            if cache.exists():
                out += load_own(cache)
                continue
        qs = []
        for r in read_jsonl(path, max_per_file):
            q = bm25.prepare(r, unigrams_only=unigrams_only)
            if q is not None:
                qs.append(q)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            torch.save(qs, cache)
        out += qs
    return out


def sample_docs(q: bm25.QueryData, rng: random.Random, n_pos=4, n_neg=15):
    """Judged relevant documents (up to n_pos) and n_neg negatives, two thirds from the uniform top 50.
    n_neg >= the candidate count takes every candidate (no sampling)."""
    pos = [d for d in range(len(q.rel)) if q.rel[d] > 0 and q.matched[d]]
    if not pos:
        return None
    rng.shuffle(pos)
    pos = pos[:n_pos]
    neg_pool = [d for d in range(len(q.rel)) if q.rel[d] <= 0 and q.matched[d]]
    hard = [d for d in neg_pool if q.rank[d] <= 50]
    rest = [d for d in neg_pool if q.rank[d] > 50]
    if n_neg >= len(neg_pool):
        neg = neg_pool
    else:
        neg = rng.sample(hard, min(len(hard), n_neg * 2 // 3))
        neg += rng.sample(rest, min(len(rest), n_neg - len(neg)))
    if not neg:
        return None
    top = max(q.rel[d] for d in pos)
    labels = [q.rel[d] / top for d in pos] + [0.0] * len(neg)
    return pos + neg, torch.tensor(labels, dtype=torch.float64)


def _inputs(queries):
    ids, att, nmask, _ = pad_batch([q.ids for q in queries], [q.ngram_tokens for q in queries])
    order = torch.zeros(nmask.shape[0], nmask.shape[1])
    for i, q in enumerate(queries):
        order[i, : len(q.ngram_tokens)] = (~q.is_unigram).float()
    return ids, att, nmask, order


def cache_features(model, queries, batch=64):
    """Frozen encoder: the pooled n-gram features of every query, computed once (eval mode)."""
    model.eval()
    with torch.no_grad():
        for i in range(0, len(queries), batch):
            chunk = queries[i : i + batch]
            ids, att, nmask, order = _inputs(chunk)
            f = model.features(ids.to(DEVICE), att.to(DEVICE), nmask.to(DEVICE))
            for j, q in enumerate(chunk):
                g = len(q.ngram_tokens)
                q.feats = f[j, :g].clone()
                q.order = order[j, :g].clone()
    model.train()


def _expansion_mask(queries, g):
    """[B,g] bool: the Bo1 expansion words of each query (export-training --expand bo1)."""
    mask = torch.zeros(len(queries), g, dtype=torch.bool)
    for i, q in enumerate(queries):
        if getattr(q, "is_expansion", None) is not None:
            mask[i, : q.is_expansion.shape[0]] = q.is_expansion
    return mask


def predict(model, queries):
    """[B,G] weights, on the CPU whatever device the model runs on: BM25 scores in float64 there
    (gradients flow back across the copy)."""
    w = _predict(model, queries)
    if getattr(model, "expansion_on", False):
        w = model.scale_expansion(w, _expansion_mask(queries, w.shape[1]).to(w.device))
    return w.cpu()


def _predict(model, queries):
    if all(getattr(q, "feats", None) is not None for q in queries):
        g = max(len(q.ngram_tokens) for q in queries)
        feats = torch.zeros(len(queries), g, queries[0].feats.shape[-1], device=DEVICE)
        order = torch.zeros(len(queries), g, device=DEVICE)
        for i, q in enumerate(queries):
            feats[i, : q.feats.shape[0]] = q.feats
            order[i, : q.order.shape[0]] = q.order
        lexical = None
        if model.lexical_on:
            ids, _, nmask, _ = _inputs(queries)
            lexical = model.lexical_offsets(ids.to(DEVICE), nmask.to(DEVICE))
        return model.score(feats, order, lexical)
    return model(*(x.to(DEVICE) for x in _inputs(queries)))


def evaluate(model, dev, batch=64):
    """MAP per dev source of the weighted re-ranking, and of uniform weights."""
    model.eval()
    res = {}
    with torch.no_grad():
        for i in range(0, len(dev), batch):
            chunk = dev[i : i + batch]
            w = predict(model, chunk)
            for j, q in enumerate(chunk):
                g = len(q.ngram_tokens)
                wq = w[j, :g].double()
                s = bm25.scores(q, wq).numpy()
                ap = bm25.average_precision(q, s, wq.numpy())
                if not np.isnan(ap):
                    res.setdefault(q.source, []).append(ap)
    model.train()
    return {k: float(np.mean(v)) for k, v in res.items()}


def uniform_map(dev):
    """Plain BM25: every uni-gram at weight 1, no bi-grams (weight 0) — the baseline to beat. For an
    expanded query (its candidates are those of the Bo1-expanded query) the query's own uni-grams only."""
    res = {}
    for q in dev:
        unigram = q.is_unigram if getattr(q, "is_expansion", None) is None else q.is_unigram & ~q.is_expansion
        w = unigram.numpy().astype(np.float64)
        ap = bm25.average_precision(q, bm25.scores(q, torch.tensor(w)).numpy(), w)
        if not np.isnan(ap):
            res.setdefault(q.source, []).append(ap)
    return {k: float(np.mean(v)) for k, v in res.items()}


def lexical_allowed(train, vocab_size, min_queries, whole_words):
    """[vocab] 0/1: the wordpieces that may get a lexical offset: pieces of training-query n-grams found
    in at least `min_queries` distinct training queries. With `whole_words`, only pieces that were a
    whole word (a uni-gram of one piece) and never part of a longer word in the training queries: a
    word's first piece (`con`, `in`, `ne`) is shared by unrelated words."""
    counts = torch.zeros(vocab_size)
    parts = set()
    seen = set()
    for q in train:
        key = (q.source, q.qid)
        if key in seen:
            continue  # oversampled copies count once
        seen.add(key)
        pieces = set()
        for k, tokens in enumerate(q.ngram_tokens):
            if not whole_words:
                pieces.update(q.ids[t] for t in tokens)
            elif bool(q.is_unigram[k]):
                if len(tokens) == 1:
                    pieces.add(q.ids[tokens[0]])
                else:
                    parts.update(q.ids[t] for t in tokens)
        counts[list(pieces)] += 1
    allowed = counts >= min_queries
    if parts:
        allowed[list(parts)] = False
    return allowed.float()


OBJECTIVE = "mean"


def dev_objective(maps, uniform):
    """Relative MAP change vs uniform BM25 over the dev sets: their mean, or (--objective min) the
    smaller of the two, so that neither dev set may regress."""
    gains = [maps[k] / uniform[k] - 1.0 for k in uniform]
    return float(min(gains) if OBJECTIVE == "min" else np.mean(gains))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--init", default=str(WORK / "pretrained.pt"))
    p.add_argument("--out", default=str(WORK / "twbert.pt"))
    p.add_argument("--epochs", type=int, default=40, help="the learning rate decays linearly over this many epochs")
    p.add_argument("--max-steps", type=int, default=None,
                   help="stop after this many steps (the schedule still spans --epochs): a budget that does not depend on "
                        "how fast the machine is")
    p.add_argument("--minutes", type=float, default=None,
                   help="optional wall-clock cap (logged when it stops a run: the result then depends on the machine)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--head-lr", type=float, default=2e-3)
    p.add_argument("--listmle", type=float, default=1.0)
    p.add_argument("--negatives", type=int, default=100000, help="negatives per query (>= 1000: every candidate)")
    p.add_argument("--eval-every", type=int, default=50)
    p.add_argument("--max-per-file", type=int, default=None, help="smoke tests: read only N queries per file")
    p.add_argument("--data-dir", default=None, help="export-training JSONL folder (default model/.work/train)")
    p.add_argument("--train-files", default="scifact-train,cacm", help="comma-separated training sets")
    p.add_argument("--pseudo-limit", type=int, default=None, help="at most N queries from each pseudo-query set")
    p.add_argument("--freeze", choices=["none", "embeddings", "encoder"], default="encoder",
                   help="keep the (GloVe-initialised) wordpiece embeddings, or the whole encoder, fixed: with ~1k real "
                        "training queries, updating the 3 M embedding parameters memorises the training words")
    p.add_argument("--unfreeze-top", type=int, default=0,
                   help="with --freeze encoder: still train the top N transformer layers (at --lr)")
    p.add_argument("--l2-init", type=float, default=0.0, help="L2 penalty pulling trained encoder weights to their pre-trained values")
    p.add_argument("--head-hidden", type=int, default=0, help="> 0: residual 2-layer MLP head of this width (deviation from §3.1)")
    p.add_argument("--repeat", default="", help="oversample training sets, e.g. cacm=8 (each query seen 8 times per epoch)")
    p.add_argument("--head-weight-lr", type=float, default=None,
                   help="learning rate of the head's feature weights (linear weight, MLP), default --head-lr; the "
                        "biases (head bias, bi-gram bias) and the maxout layer keep --head-lr. 0: only the biases learn")
    p.add_argument("--bias-lr", type=float, default=None,
                   help="learning rate of the head bias and the bi-gram bias, default --head-lr (the maxout layer keeps --head-lr); "
                        "0: keep them as the --init checkpoint has them")
    p.add_argument("--cache-features", action="store_true",
                   help="frozen encoder: compute the pooled features once, in eval mode (much faster; but without the "
                        "encoder's dropout, which the shipped run H had as noise on its features)")
    p.add_argument("--head-wd", type=float, default=0.01, help="AdamW weight decay of the head's parameters")
    p.add_argument("--head-embed", action="store_true", help="MLP head also reads the pooled input wordpiece embeddings")
    p.add_argument("--lexical", action="store_true",
                   help="learn a per-wordpiece offset of the weight (starts at 0; only pieces of training queries move)")
    p.add_argument("--lexical-lr", type=float, default=1e-2)
    p.add_argument("--lexical-wd", type=float, default=0.01, help="AdamW weight decay of the lexical offsets (pulls them to 0)")
    p.add_argument("--lexical-min-queries", type=int, default=1,
                   help="only wordpieces in at least this many training queries get an offset (the others stay 0)")
    p.add_argument("--lexical-whole-words", action="store_true",
                   help="offsets only for pieces that are whole words in the training queries (never part of a longer word)")
    p.add_argument("--prior", default=None,
                   help="genericity table (genericity.py, .npy): learn a scale of it (with --prior-shift also a shift) in the lexical offsets (needs --lexical)")
    p.add_argument("--prior-lr", type=float, default=1e-2, help="0: keep the prior of the --init checkpoint as it is")
    p.add_argument("--lexical-max-genericity", type=float, default=None,
                   help="with --prior: only pieces whose standardised genericity is below this get an offset of their own")
    p.add_argument("--prior-shift", action="store_true",
                   help="also learn a shift of every offset (off: the prior only reorders words around the phrase weight)")
    p.add_argument("--deviation-bound", type=float, default=0.0,
                   help="> 0: the MLP + lexical correction of a weight is bounded to ±this (bound·tanh(x/bound))")
    p.add_argument("--objective", choices=["mean", "min"], default="mean", help="dev objective over the two dev sets")
    p.add_argument("--ema", type=float, default=0.0, help="> 0: evaluate and keep an exponential moving average of the weights")
    p.add_argument("--train-eval", type=int, default=0, help="also report the training MAP of the first N training queries")
    p.add_argument("--select", choices=["best", "last"], default="best",
                   help="--out gets the checkpoint with the best dev objective, or the last state (a parameter learned to "
                        "convergence on training data, e.g. the genericity prior's scale, is not picked by dev noise)")
    p.add_argument("--last-out", default=None, help="also save the last state here (analysis of a run's end)")
    p.add_argument("--expansion", action="store_true",
                   help="TW-BERT + Bo1 (paper §5.3): learn only the factor of the expansion words' weights (training and dev "
                        "files exported with --expand bo1); the model itself is kept as --init has it")
    p.add_argument("--expansion-lr", type=float, default=1e-2, help="learning rate of the expansion factor's logarithm")
    p.add_argument("--dev-files", default=",".join(DEV_FILES), help="comma-separated dev sets (early stopping, reporting)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--log", default=str(WORK / "finetune.log"))
    a = p.parse_args(argv)
    global OBJECTIVE
    OBJECTIVE = a.objective
    setup_threads()
    seed_all(a.seed)
    rng = random.Random(a.seed)
    logf = Path(a.log)
    ck = load_own(a.init)
    cfg = EncoderConfig(**ck["cfg"])
    if a.expansion:
        # The model as --init has it (its head configuration too), plus the expansion factor (starts at 1).
        model = TWBert(cfg, **dict(ck.get("head", {}), expansion=True))
    else:
        model = TWBert(cfg, head_hidden=a.head_hidden, head_embed=a.head_embed, lexical=a.lexical,
                       deviation_bound=a.deviation_bound, prior=a.prior is not None)
    # Pre-training has no bigram_bias (starts at 0) and no MLP head (starts as a zero residual).
    model.load_state_dict(ck["state"], strict=False)
    model.to(DEVICE)
    head_cfg = model.head_config()
    maxout = Maxout()
    train = []
    for name in a.train_files.split(","):
        limit = a.pseudo_limit if name.startswith("pseudo") and a.pseudo_limit is not None else a.max_per_file
        train += load_queries([name], max_per_file=limit, data_dir=a.data_dir)
    for spec in filter(None, a.repeat.split(",")):
        name, times = spec.split("=")
        train += [q for q in train if q.source == name] * (int(times) - 1)
    dev = load_queries(a.dev_files.split(","), max_per_file=a.max_per_file, data_dir=a.data_dir)
    counts = {}
    for q in train:
        counts[q.source] = counts.get(q.source, 0) + 1
    uni = uniform_map(dev)
    log(logf, f"finetune: train {counts}, dev {len(dev)}, uniform dev MAP {uni}, device {DEVICE}")
    head_params = list(model.head.parameters()) + [model.bigram_bias] + list(maxout.parameters())
    if a.head_hidden > 0:
        head_params += list(model.mlp.parameters()) + list(model.mlp_out.parameters())
    lexical_params = [model.lexical.weight] if a.lexical else []
    expansion_params = []
    if a.expansion:
        if a.lexical or a.prior or a.head_hidden:
            raise SystemExit("--expansion keeps the model of --init as it is: no --lexical, --prior or --head-hidden")
        # Everything of the model stays as it is; only the factor (and the loss's maxout layer) learns.
        for x in model.parameters():
            x.requires_grad_(False)
        model.expansion_log_scale.requires_grad_(True)
        expansion_params = [model.expansion_log_scale]
    prior_params = ([model.prior_scale] + ([model.prior_shift] if a.prior_shift else [])) if a.prior else []
    if a.prior and not a.prior_shift:
        model.prior_shift.requires_grad_(False)
    if a.prior and bool((model.prior_feature == 0).all()):
        # Standardised over the training queries' uni-gram pieces (each query once), so that one learning rate
        # suits the scale. A checkpoint that already has the prior keeps its standardised table as it is.
        feature = torch.from_numpy(np.load(a.prior)).float()
        unique = {(q.source, q.qid): q for q in train}.values()
        pieces = [q.ids[t] for q in unique for k, tokens in enumerate(q.ngram_tokens) if bool(q.is_unigram[k]) for t in tokens]
        mu, sigma = float(feature[pieces].mean()), float(feature[pieces].std())
        with torch.no_grad():
            model.prior_feature.copy_((feature - mu) / sigma)
        log(logf, f"genericity prior: {a.prior}, standardised with mean {mu:.3f} sd {sigma:.3f} of {len(pieces)} training pieces")
    elif a.prior:
        log(logf, f"genericity prior: kept from {a.init} (scale {model.prior_scale.item():+.4f})")
    if a.lexical:
        allowed = lexical_allowed(train, cfg.vocab_size, a.lexical_min_queries, a.lexical_whole_words).to(DEVICE)
        if a.lexical_max_genericity is not None:
            if not a.prior:
                raise SystemExit("--lexical-max-genericity needs --prior")
            # Generic words are left to the shared prior: an offset learned for one in a training domain moves
            # it in every domain. Topic words are domain-specific, so their offsets stay where they were learned.
            allowed = allowed * (model.prior_feature < a.lexical_max_genericity).float()
        model.lexical.weight.register_hook(lambda g: g * allowed.unsqueeze(-1))
        log(logf, f"lexical offsets: {int(allowed.sum())} wordpieces may move")
    head_ids = {id(x) for x in head_params + lexical_params + prior_params + expansion_params}
    if a.freeze == "embeddings":
        model.encoder.word.weight.requires_grad_(False)
    elif a.freeze == "encoder":
        for x in model.encoder.parameters():
            x.requires_grad_(False)
        for layer in list(model.encoder.encoder.layers)[len(model.encoder.encoder.layers) - a.unfreeze_top :] if a.unfreeze_top else []:
            for x in layer.parameters():
                x.requires_grad_(True)
    body = [x for x in model.parameters() if id(x) not in head_ids and x.requires_grad]
    anchor = [x.detach().clone() for x in body]
    if a.cache_features and a.freeze == "encoder" and not a.unfreeze_top:
        t = time.time()
        cache_features(model, train)
        cache_features(model, dev)
        log(logf, f"frozen encoder: pooled features cached in {time.time() - t:.0f} s")
    tracked = [x for x in model.parameters() if x.requires_grad] + list(maxout.parameters())
    ema = [x.detach().clone() for x in tracked] if a.ema > 0 else None
    train_probe = train[: a.train_eval]

    def swap_ema():
        if ema is not None:
            for x, e in zip(tracked, ema):
                tmp = x.detach().clone()
                x.data.copy_(e)
                e.copy_(tmp)

    def measure():
        swap_ema()
        maps = evaluate(model, dev)
        if train_probe:
            maps["train"] = float(np.mean(list(evaluate(model, train_probe).values())))
        swap_ema()
        return maps
    feature_weights = [model.head.weight] + ([x for x in head_params if any(x is y for y in list(model.mlp.parameters()) + list(model.mlp_out.parameters()))] if a.head_hidden > 0 else [])
    fw_ids = {id(x) for x in feature_weights}
    hw_lr = a.head_lr if a.head_weight_lr is None else a.head_weight_lr
    if hw_lr == 0:
        for x in feature_weights:
            x.requires_grad_(False)
    biases = [model.head.bias, model.bigram_bias]
    bias_lr = a.head_lr if a.bias_lr is None else a.bias_lr
    if bias_lr == 0:
        for x in biases:
            x.requires_grad_(False)
    own_group = fw_ids | {id(x) for x in biases}  # head parameters with a learning rate of their own
    opt = torch.optim.AdamW([{"params": body, "lr": a.lr, "weight_decay": 0.01},
                             {"params": [x for x in head_params if id(x) not in own_group], "lr": a.head_lr, "weight_decay": a.head_wd},
                             {"params": biases, "lr": bias_lr, "weight_decay": a.head_wd},
                             {"params": feature_weights, "lr": hw_lr, "weight_decay": a.head_wd},
                             {"params": lexical_params, "lr": a.lexical_lr, "weight_decay": a.lexical_wd},
                             {"params": prior_params, "lr": a.prior_lr, "weight_decay": 0.0},
                             {"params": expansion_params, "lr": a.expansion_lr, "weight_decay": 0.0}])
    base_lrs = [a.lr, a.head_lr, bias_lr, hw_lr, a.lexical_lr, a.prior_lr, a.expansion_lr]
    timer = Timer()
    if train_probe:
        log(logf, f"training probe: uniform MAP {np.mean(list(uniform_map(train_probe).values())):.4f} on {len(train_probe)} queries")
    start_maps = measure()
    best = (dev_objective(start_maps, uni), 0, start_maps)
    log(logf, f"step 0 dev {start_maps} objective {best[0]:+.4f}")

    def save(step, maps, path=a.out):
        swap_ema()
        torch.save({"cfg": cfg.to_dict(), "head": head_cfg, "state": cpu_state(model), "step": step, "dev": maps}, path)
        swap_ema()

    save(0, start_maps)
    total_steps = a.epochs * (len(train) // a.batch)
    step = 0
    stop = False
    for epoch in range(a.epochs):
        rng.shuffle(train)
        for i in range(0, len(train) - a.batch + 1, a.batch):
            chunk = train[i : i + a.batch]
            w = predict(model, chunk)
            losses_amse, losses_mle = [], []
            for j, q in enumerate(chunk):
                sampled = sample_docs(q, rng, n_neg=a.negatives)
                if sampled is None:
                    continue
                rows, labels = sampled
                s = bm25.scores(q, w[j, : len(q.ngram_tokens)], torch.tensor(rows))
                top = s.max()
                if float(top) <= 0:
                    continue
                scaled = s / top
                losses_amse.append(amse(maxout(scaled), labels))
                losses_mle.append(list_mle(scaled, labels, rng))
            if not losses_amse:
                continue
            loss = torch.stack(losses_amse).mean() + a.listmle * torch.stack(losses_mle).mean()
            if a.l2_init > 0 and body:
                loss = loss + a.l2_init * sum(((x - x0) ** 2).sum() for x, x0 in zip(body, anchor))
            frac = step / max(1, total_steps)
            for g, base in zip(opt.param_groups, base_lrs):
                g["lr"] = base * min(1.0, (step + 1) / 50) * max(0.1, 1.0 - frac)
            opt.zero_grad()
            loss.float().backward()
            torch.nn.utils.clip_grad_norm_(list(model.parameters()) + list(maxout.parameters()), 1.0)
            opt.step()
            if ema is not None:
                with torch.no_grad():
                    for x, e in zip(tracked, ema):
                        e.mul_(a.ema).add_(x.detach(), alpha=1 - a.ema)
            step += 1
            if step % 20 == 0:
                log(logf, f"epoch {epoch} step {step} loss {loss.item():.4f} amse {torch.stack(losses_amse).mean().item():.4f} listmle {torch.stack(losses_mle).mean().item():.4f} mean w {w[w > 0].mean().item():.3f} bigram bias {model.bigram_bias.item():+.3f}"
                    + (f" prior scale {model.prior_scale.item():+.4f} shift {model.prior_shift.item():+.4f}" if a.prior else "")
                    + (f" expansion scale {model.expansion_scale().item():.4f}" if a.expansion else ""))
            if step % a.eval_every == 0:
                maps = measure()
                obj = dev_objective(maps, uni)
                log(logf, f"step {step} dev {maps} objective {obj:+.4f} (best {best[0]:+.4f} at {best[1]})")
                if obj > best[0]:
                    best = (obj, step, maps)
                    save(step, maps)
            if a.max_steps is not None and step >= a.max_steps:
                stop = True
                break
            if a.minutes is not None and timer.minutes() > a.minutes:
                log(logf, f"stopped by the --minutes {a.minutes} cap at step {step}")
                stop = True
                break
        if stop:
            break
    maps = measure()
    obj = dev_objective(maps, uni)
    if a.last_out:
        save(step, maps, a.last_out)
    if a.select == "last":
        best = (obj, step, maps)
        save(step, maps)
    elif obj > best[0]:
        best = (obj, step, maps)
        save(step, maps)
    final = load_own(a.out)
    final.update({"uniform_dev": uni, "args": vars(a), "train_counts": counts, "steps_run": step, "minutes": timer.minutes(),
                  "description": "TW-BERT fine-tuned through Terrier BM25 (querylens)"})
    torch.save(final, a.out)
    if a.expansion:
        log(logf, f"expansion scale kept: {float(final['state']['expansion_log_scale'].exp()):.6f} (step {final['step']})")
    if a.lexical:
        moved = final["state"]["lexical.weight"].squeeze(-1) != 0
        log(logf, f"lexical offsets kept: {int(moved.sum())} wordpieces moved, {int((moved & (allowed.cpu() == 0)).sum())} outside the allowed set")
    log(logf, f"finetune done: {step} steps in {timer.minutes():.1f} min; best step {best[1]} dev {best[2]} objective {best[0]:+.4f}; uniform {uni}")


if __name__ == "__main__":
    main()
