"""The genericity feature of every wordpiece: how common the word is across unrelated domains.

  /usr/bin/python3 -m model.twbert.genericity      -> model/.work/genericity.npy  ([vocab] float32)

A word that is frequent in computer-science abstracts (CACM), in biomedical abstracts (SciFact) and in
English dictionary glosses (WordNet) -- "analysis", "effect", "develop", "paper", "find" -- says little
about which documents a query wants; a word rare in all three is a topic word. On every query set here
the recall of such generic query words in the relevant documents is low (MODEL_CARD.md), and BM25's idf,
computed in the searched collection alone, does not see it: "analysis" is common in Cranfield and
yet low-recall. The feature is the mean over the three domains of log((df + 0.5) / N), for the word
the wordpiece spells; a continuation piece (##...) and a special token get the value of an unseen word.

Only training text is read (the CACM and SciFact corpora, WordNet glosses from Debian's wordnet-base):
no dev-collection text, query or judgement. Fine-tuning (finetune.py --prior) learns how much the
feature moves a weight; export folds the result into the lexical table (model.TWBert.bake_prior).

The collection-aware model (model.StatsTWBert with `genericity`) reads it as a statistic instead: an n-gram's
genericity is the mean of the table over the wordpieces it pools (ngram_genericity), from the table as shipped
(`--bin`: model/artifacts/genericity.f32, float32 little-endian, one value per vocabulary id), which the Node
runtime reads and averages the same way (server/model/genericity.ts; test/model/genericity.test.ts checks both).

  /usr/bin/python3 -m model.twbert.genericity --bin model/artifacts/genericity.f32   # the shipped table from the .npy
"""
from __future__ import annotations

import argparse
import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np

from .common import ARTIFACTS, WORK

DATA = Path(os.environ.get("QUERYLENS_DATA", str(WORK.parent.parent.parent / "shared" / "data")))
WORDNET = Path("/usr/share/wordnet")
WORD = re.compile(r"[a-z0-9]+")


def document_frequencies(texts) -> tuple[Counter, int]:
    df: Counter = Counter()
    n = 0
    for text in texts:
        n += 1
        df.update(set(WORD.findall(text.lower())))
    return df, n


def corpus_texts(name: str):
    path = Path(name) if name.endswith(".jsonl") else DATA / name / "corpus.jsonl"
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                yield f"{d.get('title') or ''} {d.get('text') or ''}"


def wordnet_glosses():
    for pos in ["noun", "verb", "adj", "adv"]:
        path = WORDNET / f"data.{pos}"
        if not path.exists():
            raise SystemExit(f"genericity: {path} is missing: install Debian's wordnet-base (model/README.md)")
        with open(path, encoding="utf-8", errors="ignore") as f:
            for line in f:
                if not line.startswith(" ") and "|" in line:  # lines starting with a space are the licence
                    yield line.split("|", 1)[1]


def read_vocab(path: Path) -> list[str]:
    if path.suffix == ".json":
        ids = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
        vocab = [""] * len(ids)
        for piece, i in ids.items():
            vocab[i] = piece
        return vocab
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line != ""]


def genericity_table(vocab: list[str], domains: list[tuple[Counter, int]]) -> np.ndarray:
    unseen = float(np.mean([np.log(0.5 / n) for _, n in domains]))
    table = np.full(len(vocab), unseen, dtype=np.float32)
    for i, piece in enumerate(vocab):
        if piece.startswith("##") or (piece.startswith("[") and piece.endswith("]")):
            continue
        table[i] = np.mean([np.log((df.get(piece, 0) + 0.5) / n) for df, n in domains])
    return table


GENERICITY_BIN = ARTIFACTS / "genericity.f32"


def write_bin(table: np.ndarray, path: Path) -> None:
    """The shipped form of the table: float32 little-endian, one value per vocabulary id, nothing else."""
    path.write_bytes(np.asarray(table, dtype="<f4").tobytes())


def read_bin(path: Path = GENERICITY_BIN) -> np.ndarray:
    if not Path(path).exists():
        raise SystemExit(f"genericity: no table at {path} (python3 -m model.twbert.genericity --bin {path})")
    return np.frombuffer(Path(path).read_bytes(), dtype="<f4").astype(np.float32)


def ngram_genericity(table: np.ndarray, ids: list, tokens: list) -> float:
    """An n-gram's genericity: the mean of the table over the wordpieces it pools (positions `tokens` in `ids`), in
    float64 from the float32 table, as server/model/genericity.ts ngramGenericity computes it."""
    if not tokens:
        return 0.0
    return float(np.mean([np.float64(table[ids[t]]) for t in tokens]))


def record_genericity(table: np.ndarray, record: dict) -> list:
    """The genericity of every n-gram of an export-training record. A long query's n-grams past the first window
    are read from the window that weighs them (the record's own ids stop at the encoder's window)."""
    out = [ngram_genericity(table, record["ids"], g["tokens"]) for g in record["ngrams"]]
    seen = set()
    for w in record.get("windows") or []:
        for g, toks in zip(w["ngrams"], w["ngramTokens"]):
            if g not in seen:
                seen.add(g)
                out[g] = ngram_genericity(table, w["ids"], toks)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vocab", default=str(ARTIFACTS / "tokenizer.json"), help="the WordPiece tokenizer.json (or a vocab.txt)")
    p.add_argument("--out", default=str(WORK / "genericity.npy"))
    p.add_argument("--bin", default=None, help="write the shipped form of an existing --out table to this path, and stop")
    p.add_argument("--domains", default="cacm,scifact,wordnet",
                   help="comma-separated: a collection of the shared data folder, a corpus .jsonl, or 'wordnet'")
    a = p.parse_args(argv)
    if a.bin:
        table = np.load(a.out)
        write_bin(table, Path(a.bin))
        print(f"genericity: {len(table)} values -> {a.bin}")
        return
    vocab = read_vocab(Path(a.vocab))
    names = [d for d in a.domains.split(",") if d]
    if any("cranfield" in n.lower() for n in names):
        raise SystemExit("genericity: Cranfield is a dev collection and is not read for training features")
    domains = [document_frequencies(wordnet_glosses() if n == "wordnet" else corpus_texts(n)) for n in names]
    table = genericity_table(vocab, domains)
    np.save(a.out, table)
    print(f"genericity: {len(vocab)} wordpieces, domains of {[n for _, n in domains]} documents -> {a.out}")


if __name__ == "__main__":
    main()
