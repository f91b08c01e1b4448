"""Paths, batching and checkpoint helpers shared by the training stages."""
from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import numpy as np
import torch

MODEL_DIR = Path(__file__).resolve().parent.parent
WORK = MODEL_DIR / ".work"
ARTIFACTS = MODEL_DIR / "artifacts"

# What the `train all` recipe reads, in `querylens eval-model`'s collection names; export writes it to
# config.json (`provenance`) so that eval-model can say which of its figures are not held out.
RECIPE_PROVENANCE = {
    "trainedOn": ["scifact-train", "cacm"],
    "selectedOn": ["cranfield", "scifact-test"],
    "corporaRead": ["cacm", "scifact"],
    "note": "pseudo-queries and pre-training from the CACM and SciFact documents, genericity also from WordNet glosses",
}
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = 0, 100, 101, 102, 103
SPECIAL_IDS = {PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID}


def setup_threads() -> None:
    # 2 cores shared with other work: never take more than 2 threads.
    torch.set_num_threads(int(os.environ.get("TWBERT_THREADS", "2")))


def training_device() -> torch.device:
    """Where training runs: CUDA when torch sees a GPU, the CPU otherwise (the same recipe on both).
    TWBERT_DEVICE=cpu|cuda forces one, so that a GPU machine can also run the CPU side of a parity check."""
    wanted = os.environ.get("TWBERT_DEVICE", "auto")
    if wanted == "cpu" or (wanted == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise SystemExit("TWBERT_DEVICE=cuda but torch sees no CUDA device")
    return torch.device("cuda")


DEVICE = training_device()


def load_own(path) -> object:
    """torch.load of a file this pipeline wrote (checkpoints, caches of prepared queries), onto the CPU. Not
    weights-only: the caches hold our own classes, which torch >= 2.6 refuses by default."""
    return torch.load(path, map_location="cpu", weights_only=False)


def cpu_state(module: torch.nn.Module) -> dict:
    """A state dict on the CPU: checkpoints load the same on a machine without a GPU."""
    return {k: v.detach().cpu() for k, v in module.state_dict().items()}


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def read_jsonl(path: Path, limit: int | None = None) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
                if limit is not None and len(out) >= limit:
                    break
    return out


def pad_batch(seqs: list[list[int]], ngrams: list[list[list[int]]]):
    """ids [B,T] (0-padded), attention_mask [B,T], ngram_mask [B,G,T] (1 on an n-gram's wordpieces),
    ngram_valid [B,G]."""
    b = len(seqs)
    t = max(len(s) for s in seqs)
    g = max(1, max(len(n) for n in ngrams))
    ids = torch.zeros(b, t, dtype=torch.long)
    att = torch.zeros(b, t, dtype=torch.long)
    nmask = torch.zeros(b, g, t, dtype=torch.float32)
    valid = torch.zeros(b, g, dtype=torch.bool)
    for i, (s, ng) in enumerate(zip(seqs, ngrams)):
        ids[i, : len(s)] = torch.tensor(s)
        att[i, : len(s)] = 1
        for j, toks in enumerate(ng):
            if toks:
                nmask[i, j, toks] = 1.0
                valid[i, j] = True
    return ids, att, nmask, valid


def load_glove_rows(vocab_size: int, dim: int):
    rows = np.fromfile(WORK / "glove_rows.f32", dtype=np.float32).reshape(vocab_size, dim)
    mask = np.fromfile(WORK / "glove_rows.mask", dtype=np.uint8).astype(bool)
    return torch.from_numpy(rows.copy()), torch.from_numpy(mask)


class Timer:
    def __init__(self):
        self.start = time.time()

    def minutes(self) -> float:
        return (time.time() - self.start) / 60.0


def log(path: Path, msg: str) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
