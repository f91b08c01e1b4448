"""Does training give the same model on a GPU as on the CPU? Runs every training stage twice on one small slice,
once with TWBERT_DEVICE=cpu and once with TWBERT_DEVICE=cuda, and compares the checkpoints they write.

  /usr/bin/python3 -m model.twbert.device_parity --slice DIR [--out report.json]

DIR is the training smoke tests' slice, kept with QUERYLENS_KEEP_SMOKE_DIR=DIR (test/model/train-smoke.test.ts and
deepct-index.test.ts): pretrain.jsonl, data/ (export-training), loco-data/ and adaptive-data/ (export-training
--stats), deepct-index-home/; and csurf-adi.jsonl (model/.work/csurf/data/adi.jsonl, the learned expansion's export). Every stage
starts from the CPU output of the stage before it, so a difference is the stage's own, not carried along. The
encoder is pre-trained without dropout: the CPU and CUDA random streams differ, and with dropout the two runs
would draw different masks; without it, the two devices should differ by float rounding only (reductions are
summed in another order; index_add is atomic on the GPU).

Reported per stage, for the last state (after the same steps, not the state a dev figure selected): the L2
difference of all parameters relative to their L2 norm, the tensor that differs most (relative to its own norm),
and the wall time of each run. Without a GPU it says so and exits 2.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

from .common import load_own

REPO = Path(__file__).resolve().parent.parent.parent


def stages(slice_dir: Path, work: Path) -> list[tuple[str, list[str], str]]:
    """(name, arguments with {dev} for the device's folder and {cpu} for the CPU run's folder, checkpoint written)."""
    data, loco, adaptive = slice_dir / "data", slice_dir / "loco-data", slice_dir / "adaptive-data"
    common = ["--data-dir", str(data), "--batch", "4", "--eval-every", "2"]
    lexical = common + ["--bias-lr", "0", "--head-weight-lr", "0", "--lexical", "--lexical-min-queries", "1",
                        "--lexical-whole-words", "--deviation-bound", "0.25", "--cache-features",
                        "--prior", str(slice_dir / "genericity.npy"), "--repeat", "cacm=4"]
    return [
        ("pretrain", ["model.twbert.pretrain", "--data", str(slice_dir / "pretrain.jsonl"), "--out", "{dev}/pre.pt",
                      "--max-steps", "40", "--batch", "8", "--hidden", "32", "--layers", "1", "--dropout", "0",
                      "--warmup", "5", "--log", "{dev}/pre.log"], "pre.pt"),
        ("finetune phase 1 (phrase)", ["model.twbert.finetune", "--init", "{cpu}/pre.pt", "--out", "{dev}/twbert-phrase.pt", "--last-out", "{dev}/twbert-phrase-last.pt",
                                       *common, "--epochs", "2", "--log", "{dev}/ft.log"], "twbert-phrase-last.pt"),
        ("finetune phase 2 (genericity prior)", ["model.twbert.finetune", "--init", "{cpu}/twbert-phrase.pt", "--out",
                                                 "{dev}/twbert-prior.pt", "--last-out", "{dev}/twbert-prior-last.pt", *lexical, "--epochs", "2", "--lexical-lr", "0",
                                                 "--prior-lr", "3e-3", "--select", "last", "--log", "{dev}/prior.log"], "twbert-prior-last.pt"),
        ("finetune phase 3 (offsets)", ["model.twbert.finetune", "--init", "{cpu}/twbert-prior.pt", "--out",
                                        "{dev}/twbert-offsets.pt", "--last-out", "{dev}/twbert-offsets-last.pt", *lexical, "--epochs", "2", "--prior-lr", "0",
                                        "--log", "{dev}/lex.log"], "twbert-offsets-last.pt"),
        ("finetune phase 4 (Bo1 factor)", ["model.twbert.finetune", "--init", "{cpu}/twbert-offsets.pt", "--out", "{dev}/twbert.pt", "--last-out", "{dev}/twbert-last.pt",
                                           *common, "--expansion", "--expansion-lr", "5e-2", "--head-weight-lr", "0", "--bias-lr", "0",
                                           "--cache-features", "--train-files", "scifact-train-bo1,cacm-bo1", "--dev-files",
                                           "dev-cranfield-bo1,dev-scifact-test-bo1", "--epochs", "2", "--select", "last",
                                           "--log", "{dev}/exp.log"], "twbert-last.pt"),
        ("DeepCT-Query", ["model.twbert.deepct", "--init", "{cpu}/pre.pt", "--out", "{dev}/deepct.pt", "--last-out", "{dev}/deepct-last.pt", *common[:2],
                          "--epochs", "2", "--batch", "4", "--eval-every", "2", "--log", "{dev}/dct.log"], "deepct-last.pt"),
        ("collection-aware (loco ship)", ["model.twbert.loco", "ship", "--encoder", "{cpu}/pre.pt", "--data-dir", str(loco),
                                          "--runs-dir", "{dev}/loco-runs", "--folds-dir", "{dev}/loco-folds", "--epochs", "2",
                                          "--epoch-queries", "32", "--grid-limit", "2", "--out", "{dev}/twbert-stats.pt",
                                          "--log", "{dev}/loco.log"], "twbert-stats.pt"),
        ("adaptive TW-BERT + Bo1 (adaptive ship)", ["model.twbert.adaptive", "ship", "--encoder", "{cpu}/pre.pt", "--data-dir",
                                                    str(adaptive), "--runs-dir", "{dev}/adaptive-runs", "--folds-dir",
                                                    "{dev}/adaptive-folds", "--epochs", "2", "--epoch-queries", "32",
                                                    "--grid-pick", "8", "--out", "{dev}/twbert-adaptive.pt",
                                                    "--log", "{dev}/adaptive.log"], "twbert-adaptive.pt"),
        ("DeepCT-Index (smoke: a tiny encoder, one epoch)", ["model.twbert.deepct_index", "smoke", "--init", "tiny",
                                                             "--collections", "syn", "--out-dir", "{dev}/deepct-index",
                                                             "--max-windows", "8"], "deepct-index/parity.json"),
        ("learned surface-form expansion (csurf smoke, 10 steps)", ["model.csurf.train", "smoke", "--data",
                                                                 str(slice_dir / "csurf-adi.jsonl"), "--out", "{dev}/csurf"],
         "csurf/parity.json"),
    ]


def load_result(path: Path) -> dict:
    """A checkpoint, or the csurf smoke stage's parity.json (its model's weights on fixed features) as a state."""
    if path.suffix == ".json":
        weights = json.loads(path.read_text())["weights"]
        flat = [x for row in weights for x in row] if weights and isinstance(weights[0], list) else weights
        return {"state": {"weights": torch.tensor(flat, dtype=torch.float64)}}
    return load_own(path)


def compare(a: dict, b: dict) -> dict:
    """How far apart two checkpoints' states are: over all float parameters together, |θ_cpu − θ_other| / |θ_cpu|
    (L2), and the tensor where that ratio is largest. A per-tensor ratio can be large for a parameter that is
    near zero (a bias Adam moves by about its learning rate per step, whatever the gradient's size)."""
    sa, sb = a.get("state", a), b.get("state", b)
    diff2 = norm2 = 0.0
    worst, where = 0.0, None
    for k, x in sa.items():
        y = sb.get(k)
        if not torch.is_tensor(x) or y is None or not x.is_floating_point():
            continue
        d2 = float(((x.double() - y.double()) ** 2).sum())
        n2 = float((x.double() ** 2).sum())
        diff2, norm2 = diff2 + d2, norm2 + n2
        ratio = (d2 / n2) ** 0.5 if n2 > 0 else (0.0 if d2 == 0 else float("inf"))
        if ratio > worst:
            worst, where = ratio, k
    return {"relativeDifference": (diff2 / norm2) ** 0.5 if norm2 > 0 else 0.0, "worstTensor": where,
            "worstTensorRelativeDifference": worst, "step_cpu": a.get("step"), "step_second": b.get("step"),
            "epochs_cpu": a.get("epochs"), "epochs_second": b.get("epochs")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--slice", required=True, help="the training smoke test's kept slice (QUERYLENS_KEEP_SMOKE_DIR)")
    p.add_argument("--work", default=None, help="where the two runs write (default: a folder beside --out)")
    p.add_argument("--out", default="device-parity.json")
    p.add_argument("--second-device", default="cuda", choices=["cuda", "cpu"],
                   help="cpu: run the CPU twice (a dry run of the plumbing, and a check that the CPU is deterministic)")
    p.add_argument("--tolerance", type=float, default=1e-3,
                   help="largest relative difference of all parameters together (L2) still called float noise")
    a = p.parse_args(argv)
    if a.second_device == "cuda" and not torch.cuda.is_available():
        print("device_parity: torch sees no CUDA device here: nothing to compare", file=sys.stderr)
        return 2
    slice_dir = Path(a.slice).resolve()
    work = Path(a.work or Path(a.out).resolve().parent / "device-parity-runs")
    devices = {"cpu": "cpu", "second": a.second_device}
    dirs = {d: work / d for d in devices}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    home = slice_dir / "deepct-index-home"
    if (home / "data" / "syn.json").exists():
        # The kept slice names the qrels where the test wrote them; point it at the copy.
        syn = json.loads((home / "data" / "syn.json").read_text())
        syn["qrels"] = str(home / "qrels.txt")
        (home / "data" / "syn.json").write_text(json.dumps(syn))
    report = {"torch": torch.__version__, "second": a.second_device,
              "gpu": torch.cuda.get_device_name(0) if a.second_device == "cuda" else None, "stages": []}
    ok = True
    for name, args, ckpt in stages(slice_dir, work):
        row = {"stage": name}
        for run, device in devices.items():
            argv_d = [x.replace("{dev}", str(dirs[run])).replace("{cpu}", str(dirs["cpu"])) for x in args]
            env = dict(os.environ, TWBERT_DEVICE=device, TWBERT_THREADS=os.environ.get("TWBERT_THREADS", "4"),
                       DEEPCT_INDEX_HOME=str(slice_dir / "deepct-index-home"))
            t = time.time()
            r = subprocess.run([sys.executable, "-m", *argv_d], cwd=REPO, env=env, capture_output=True, text=True)
            row[f"seconds_{run}"] = round(time.time() - t, 2)
            if r.returncode != 0:
                row[f"error_{run}"] = (r.stderr or r.stdout)[-2000:]
        if "error_cpu" in row or "error_second" in row:
            ok = False
        else:
            c = load_result(dirs["cpu"] / ckpt)
            g = load_result(dirs["second"] / ckpt)
            row.update(compare(c, g))
            row["withinTolerance"] = row["relativeDifference"] <= a.tolerance
            ok = ok and row["withinTolerance"]
        report["stages"].append(row)
        print(json.dumps(row), flush=True)
    report["allWithinTolerance"] = ok
    Path(a.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
