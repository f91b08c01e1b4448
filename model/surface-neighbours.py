"""Each word's nearest words by vector, for the learned expansion's embedding neighbours (issue 15 §1).

  /usr/bin/python3 model/surface-neighbours.py [--k 32]   # model/artifacts/surface-embeddings.bin -> surface-neighbours.bin

Why a table: finding a query word's neighbours among an index's words by scanning their vectors costs about
1.5 ms a word for a 8,000-word index (15 ms for a ten-word query); reading the word's row of this table and
keeping the words the index has costs microseconds. A word's neighbours in an index are therefore those of its
K nearest words in the whole vocabulary that the index holds (a small index may hold none: a word that far is
no alternative anyway).

The vectors are read as server/model/surface-embeddings.ts reads them (int8 rows scaled to unit length), and
compared by cosine; ties keep the more frequent word (lower row).

Format (read by server/model/surface-embeddings.ts), little-endian:
  "QLNBR1\\n", uint32 words (as in surface-embeddings.bin), uint32 K, then words × K uint16 row numbers, nearest first.
"""
from __future__ import annotations

import argparse
import struct
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def read_vectors(path: Path) -> np.ndarray:
    data = path.read_bytes()
    magic = b"QLEMB1\n"
    if not data.startswith(magic):
        raise SystemExit(f"{path}: not a word-vector file (build it with node model/surface-embeddings.mjs)")
    count, dims, word_bytes = struct.unpack_from("<III", data, len(magic))
    start = len(magic) + 12 + word_bytes
    q = np.frombuffer(data, dtype=np.int8, count=count * dims, offset=start).reshape(count, dims).astype(np.float64)
    norm = np.sqrt((q * q).sum(axis=1, keepdims=True))
    return (q / np.where(norm > 0, norm, 1)).astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--vectors", type=Path, default=HERE / "artifacts" / "surface-embeddings.bin")
    ap.add_argument("--out", type=Path, default=HERE / "artifacts" / "surface-neighbours.bin")
    args = ap.parse_args()
    v = read_vectors(args.vectors)
    n = len(v)
    if n >= 1 << 16:
        raise SystemExit(f"{n} words: row numbers are uint16 here")
    table = np.empty((n, args.k), dtype=np.uint16)
    for a in range(0, n, 2048):
        sims = v[a : a + 2048] @ v.T
        rows = np.arange(a, min(a + 2048, n))
        sims[rows - a, rows] = -np.inf  # not its own neighbour
        part = np.argpartition(-sims, args.k, axis=1)[:, : args.k]
        for i, row in enumerate(part):
            # Nearest first; equal similarities keep the more frequent word first.
            order = np.lexsort((row, -sims[i, row]))
            table[a + i] = row[order]
    args.out.write_bytes(b"QLNBR1\n" + struct.pack("<II", n, args.k) + table.astype("<u2").tobytes())
    print(f"surface neighbours: {n} words × {args.k} -> {args.out}")


if __name__ == "__main__":
    main()
