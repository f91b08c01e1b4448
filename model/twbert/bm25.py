"""Terrier BM25 (SEMANTICS.md §4.1) over the statistics exported by `querylens export-training`,
differentiable in the query n-gram weights, and the re-ranking evaluation used for early stopping.

  score(T, D, w) = Σ_c idf(c) · tfn(c, D) · (k3+1)·qtw_c / (k3 + qtw_c)
  f_c   = Σ of the weights of every occurrence of n-gram c in the query (repeats SUM)
  qtw_c = f_c / max_c' f_c'            (Terrier's normaliseTermWeights, as the engine does)
  idf   = log2((N − df + 0.5)/(df + 0.5))   (RSJ; negative when df > N/2, kept as the engine keeps it)
  tfn   = (k1+1)·tf / (k1·((1−b) + b·dl/avgdl) + tf)
with k1 = 1.2, b = 0.75, k3 = 8. Bi-gram concepts carry the engine's exact #1-window tf and df.

Check mode (used by test/model's parity test with the engine):
  /usr/bin/python3 -m model.twbert.bm25 --check FILE.json   reads {"records": [...], "weights": [[...], ...]}
  and prints {"scores": [[score per doc], ...]}.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass

import numpy as np
import torch

K1, B, K3 = 1.2, 0.75, 8.0
LN2_REC = 1.0 / math.log(2.0)


@dataclass
class QueryData:
    qid: str
    source: str
    ids: list
    ngram_tokens: list  # per occurrence: wordpiece indices
    occ_concept: torch.Tensor  # [G] long: occurrence -> concept
    is_unigram: torch.Tensor  # [G] bool
    idf: torch.Tensor  # [C] float64
    tfn: torch.Tensor  # [D, C] float64
    matched: np.ndarray  # [D] bool: document has some concept (the engine would retrieve it)
    rel: np.ndarray  # [D] float: qrels grade, 0 when unjudged or non-relevant
    judged_relevant: int  # number of relevant docs in qrels (for AP's denominator)
    rank: np.ndarray  # [D] uniform BM25 rank (1-based), large when outside the top k
    docnos: list
    docno_rank: np.ndarray  # [D] rank of the docno in ascending string order (engine tie-break)
    unigram_terms: list  # per unigram occurrence: its term (for DeepCT targets)
    # [G] bool: a Bo1 expansion word the model read after the query (export-training --expand bo1); None: none
    is_expansion: torch.Tensor | None = None


def idf_of(df: float, n: float) -> float:
    return math.log((n - df + 0.5) / (df + 0.5)) * LN2_REC


def prepare(record: dict, unigrams_only: bool = False) -> QueryData | None:
    ngrams = record["ngrams"]
    if unigrams_only:
        ngrams = [g for g in ngrams if len(g["terms"]) == 1]
    if not ngrams:
        return None
    concepts = record["concepts"]
    used = sorted({g["concept"] for g in ngrams})
    remap = {c: i for i, c in enumerate(used)}
    n, avgdl = float(record["N"]), float(record["avgdl"])
    idf = torch.tensor([idf_of(concepts[c]["df"], n) for c in used], dtype=torch.float64)
    docs = record["docs"]
    tfn = torch.zeros(len(docs), len(used), dtype=torch.float64)
    matched = np.zeros(len(docs), dtype=bool)
    for d, doc in enumerate(docs):
        k = K1 * ((1 - B) + B * doc["dl"] / avgdl)
        for c, tf in doc["tf"]:
            if c in remap:
                tfn[d, remap[c]] = ((K1 + 1) * tf) / (k + tf)
                matched[d] = True
    rel = np.array([max(0.0, float(doc["rel"] or 0)) for doc in docs])
    rank = np.array([doc["rank"] if doc["rank"] is not None else 10**9 for doc in docs], dtype=np.int64)
    return QueryData(
        qid=record["qid"],
        source=record.get("source", ""),
        ids=record["ids"],
        ngram_tokens=[g["tokens"] for g in ngrams],
        occ_concept=torch.tensor([remap[g["concept"]] for g in ngrams], dtype=torch.long),
        is_unigram=torch.tensor([len(g["terms"]) == 1 for g in ngrams]),
        idf=idf,
        tfn=tfn,
        matched=matched,
        rel=rel,
        judged_relevant=int((np.array([float(doc["rel"] or 0) for doc in docs]) > 0).sum()),
        rank=rank,
        docnos=[doc["docno"] for doc in docs],
        docno_rank=np.argsort(np.argsort(np.array([doc["docno"] for doc in docs], dtype=object))),
        unigram_terms=[g["terms"][0] for g in ngrams if len(g["terms"]) == 1],
        is_expansion=torch.tensor([bool(g.get("expansion")) for g in ngrams]) if any(g.get("expansion") for g in ngrams) else None,
    )


def concept_qtw_factor(q: QueryData, weights: torch.Tensor) -> torch.Tensor:
    """weights [G] (one per occurrence) -> the k3 factor per concept [C] (float64)."""
    f = torch.zeros(q.idf.shape[0], dtype=torch.float64).index_add(0, q.occ_concept, weights.to(torch.float64))
    top = f.max()
    qtw = f / top if float(top) > 0 else torch.zeros_like(f)
    return (K3 + 1) * qtw / (K3 + qtw)


def scores(q: QueryData, weights: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
    """BM25 scores [D] (or of `rows`) for per-occurrence weights [G]."""
    qf = concept_qtw_factor(q, weights)
    tfn = q.tfn if rows is None else q.tfn[rows]
    return tfn @ (q.idf * qf)


def average_precision(q: QueryData, s: np.ndarray, weights: np.ndarray, depth: int = 1000) -> float:
    """AP of the weighted ranking over the candidates (documents matching a concept whose weight is
    > 0, ties by docno descending as the engine breaks them), cut at `depth`."""
    if q.judged_relevant == 0:
        return float("nan")
    f = np.zeros(q.idf.shape[0])
    np.add.at(f, q.occ_concept.numpy(), weights)
    live = (q.tfn.numpy()[:, f > 0] > 0).any(axis=1)
    cand = np.nonzero(live)[0]
    # Score descending, ties by docno descending (np.lexsort: the last key is the primary one).
    order = cand[np.lexsort((-q.docno_rank[cand], -s[cand]))][:depth]
    relevant = q.rel[order] > 0
    if not relevant.any():
        return 0.0
    hits = np.cumsum(relevant)
    return float((hits[relevant] / (np.nonzero(relevant)[0] + 1)).sum() / q.judged_relevant)


def check_main(path: str) -> None:
    data = json.load(open(path))
    out = []
    for record, w in zip(data["records"], data["weights"]):
        q = prepare(record)
        s = scores(q, torch.tensor(w, dtype=torch.float64)) if q else torch.zeros(len(record["docs"]))
        out.append([float(x) for x in s])
    json.dump({"scores": out}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check_main(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)
