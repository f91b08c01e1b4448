"""The whole model build, one command (run from the repository root):

  /usr/bin/python3 -m model.twbert.train all        # data, pre-training, DeepCT, the shipped TW-BERT, export

Stages (each can be run alone: data | pretrain | finetune | deepct | adaptive-data | ship | export | evaluate, and
the leave-one-collection-out rotations loco-data | loco | adaptive):
  data      tokenizer.json, GloVe rows, pre-training sequences, the genericity table, engine indexes,
            pseudo-queries and the `querylens export-training` JSONL of every training and dev query set
  pretrain  MLM (all occurrences of a masked wordpiece) + MSE of every n-gram weight to 1
  deepct    DeepCT-Query baseline (regression to term recall), same data and early stopping
  adaptive-data  engine indexes of the nine collections and `export-training --stats` of every query set, as
            written and Bo1-expanded (model/.work/loco-x/)
  ship      the shipped TW-BERT: the collection-aware model with adaptive Bo1 expansion (model/twbert/adaptive.py)
            trained on the seven training collections with the configuration its leave-one-collection-out rotation
            chose (model/twbert/shipped-configuration.json) -> model/.work/twbert-shipped.pt
  export    ONNX (opset 14) + config.json into model/artifacts, and the parity fixtures for test/model
  evaluate  dev-set MAP end to end through the engine (weigh -> search -> eval), model/.work/eval/summary.tsv
  finetune  the previous shipped TW-BERT's recipe (not in `all`): the phrase weight, the genericity prior,
            per-word offsets and one Bo1 factor, with early stopping on Cranfield and SciFact test

Budgets are steps and epochs, never wall-clock minutes, so that a rebuild on a faster or a busier machine trains
the same model: --pretrain-steps, --finetune-steps (phase 1); phases 2 and 3 and DeepCT run a fixed number of epochs.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from .common import MODEL_DIR, WORK

ROOT = MODEL_DIR.parent
DATA = os.environ.get("QUERYLENS_DATA", str(ROOT.parent / "shared" / "data"))
CLI = ["npx", "--no-install", "tsx", "server/cli/main.ts"]


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True, **kw)


def py(module, *args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    run([sys.executable, "-m", module, *args], env=env)


def stage_data():
    run(["node", "model/build-tokenizer.mjs"])
    run(["node", "--max-old-space-size=8000", "model/glove-rows.mjs"])
    run(["npx", "--no-install", "tsx", "model/prepare-pretrain.ts"])
    run(["node", "model/make-pseudo.mjs"])
    py("model.twbert.genericity")
    idx = WORK / "idx"
    train = WORK / "train"
    train.mkdir(parents=True, exist_ok=True)
    corpora = {
        "scifact": f"{DATA}/scifact/corpus.jsonl",
        "cacm": f"{DATA}/cacm/corpus.jsonl",
        "cranfield": f"{DATA}/cranfield/corpus.jsonl",
        "pseudo-scifact": str(WORK / "pseudo" / "scifact.corpus.jsonl"),
        "pseudo-cacm": str(WORK / "pseudo" / "cacm.corpus.jsonl"),
    }
    for name, corpus in corpora.items():
        run([*CLI, "index", corpus, "--out", str(idx / name), "--no-progress"])
    sets = [
        # name, index, queries, qrels, k
        ("scifact-train", "scifact", f"{DATA}/scifact/queries.train.tsv", f"{DATA}/scifact/qrels.train.txt", 1000),
        ("cacm", "cacm", f"{DATA}/cacm/queries.tsv", f"{DATA}/cacm/qrels.txt", 1000),
        ("pseudo-scifact", "pseudo-scifact", str(WORK / "pseudo/scifact.queries.tsv"), str(WORK / "pseudo/scifact.qrels.txt"), 200),
        ("pseudo-cacm", "pseudo-cacm", str(WORK / "pseudo/cacm.queries.tsv"), str(WORK / "pseudo/cacm.qrels.txt"), 200),
        # dev sets: early stopping and reporting only
        ("dev-cranfield", "cranfield", f"{DATA}/cranfield/queries.tsv", f"{DATA}/cranfield/qrels.txt", 1000),
        ("dev-scifact-test", "scifact", f"{DATA}/scifact/queries.test.tsv", f"{DATA}/scifact/qrels.test.txt", 1000),
    ]
    for name, index, queries, qrels, k in sets:
        run([*CLI, "export-training", "--index", str(idx / index), queries, "--qrels", qrels,
             "--out", str(train / f"{name}.jsonl"), "--source", name, "-k", str(k)])
    # TW-BERT + Bo1 (fine-tuning phase 4): what the model reads with --expand bo1 (the query, then Bo1's words).
    for name, index, queries, qrels, k in sets:
        if not name.startswith("pseudo"):
            run([*CLI, "export-training", "--index", str(idx / index), queries, "--qrels", qrels, "--expand", "bo1",
                 "--out", str(train / f"{name}-bo1.jsonl"), "--source", f"{name}-bo1", "-k", str(k)])


# Leave-one-collection-out (issue 16): the seven training collections the rotation runs over, and the two reporting
# sets that never train or select anything. name -> (corpus folder, queries, qrels); the same list as
# `querylens eval-model` (server/cli/commands/eval-model.ts collectionSpecs).
LOCO_TRAINING = {
    "cacm": ("cacm", "queries.tsv", "qrels.txt"),
    "scifact-train": ("scifact", "queries.train.tsv", "qrels.train.txt"),
    "cranfield": ("cranfield", "queries.tsv", "qrels.txt"),
    "adi": ("adi", "queries.tsv", "qrels.txt"),
    "lisa": ("lisa", "queries.tsv", "qrels.txt"),
    "time": ("time", "queries.tsv", "qrels.txt"),
    "nfcorpus-dev": ("nfcorpus-dev", "queries.tsv", "qrels.txt"),
}
LOCO_REPORTING = {
    "scifact-test": ("scifact", "queries.test.tsv", "qrels.test.txt"),
    "nfcorpus-test": ("nfcorpus", "queries.tsv", "qrels.txt"),
}


def stage_loco_data(out=WORK / "loco", idx=WORK / "idx"):
    """Engine indexes of all nine collections and `export-training --stats` of every query set (the query, its
    n-grams with their collection statistics, the uniform BM25 top 1000 and the judged documents), plus the
    Bo1-expanded form (`--expand bo1 --stats`) that TW-BERT + Bo1 reads, into model/.work/loco/ (`adaptive-data`:
    model/.work/loco-x/, with the expansion statistics, indexes in model/.work/idx-f4/)."""
    out.mkdir(parents=True, exist_ok=True)
    sets = {**LOCO_TRAINING, **LOCO_REPORTING}
    for folder in sorted({f for f, _, _ in sets.values()}):
        if not (idx / folder / "meta.bin").exists():
            run([*CLI, "index", f"{DATA}/{folder}/corpus.jsonl", "--out", str(idx / folder), "--no-progress"])
    for name, (folder, queries, qrels) in sets.items():
        for suffix, extra in (("", []), ("-bo1", ["--expand", "bo1"])):
            target = out / f"{name}{suffix}.jsonl"
            if target.exists():
                continue
            run([*CLI, "export-training", "--index", str(idx / folder), f"{DATA}/{folder}/{queries}", "--qrels",
                 f"{DATA}/{folder}/{qrels}", "--stats", *extra, "--out", str(target), "--source", name, "-k", "1000"])


def stage_loco():
    """The collection-aware model (model/twbert/loco.py): the nested leave-one-collection-out rotation, the fold
    models (each trained without, and selected without, the collection it is reported on) exported into
    model/.work/loco-folds/<collection>/ for `querylens eval-model --loco`, and the shipped model (all seven
    training collections, the knobs the rotation chose) into model/.work/twbert-stats.pt."""
    py("model.twbert.loco", "ship")
    folds = WORK / "loco-folds"
    for name in LOCO_TRAINING:
        out = folds / name
        out.mkdir(parents=True, exist_ok=True)
        py("model.twbert.export", "--model", "twbert", "--checkpoint", str(folds / f"{name}.pt"), "--out-dir", str(out), "--no-parity")
        (out / "tokenizer.json").write_bytes((MODEL_DIR / "artifacts" / "tokenizer.json").read_bytes())


def stage_adaptive():
    """TW-BERT + Bo1 with adaptive expansion (model/twbert/adaptive.py): the rotation over model/.work/loco-x/, the
    fold models exported into model/.work/adaptive-folds/<collection>/ for `querylens eval-model --loco`, and the model
    on all seven (model/.work/twbert-adaptive.pt)."""
    py("model.twbert.adaptive", "ship")
    folds = WORK / "adaptive-folds"
    for name in LOCO_TRAINING:
        out = folds / name
        out.mkdir(parents=True, exist_ok=True)
        py("model.twbert.export", "--model", "twbert", "--checkpoint", str(folds / f"{name}.pt"), "--out-dir", str(out), "--no-parity", "--not-final")
        (out / "tokenizer.json").write_bytes((MODEL_DIR / "artifacts" / "tokenizer.json").read_bytes())


SHIPPED = WORK / "twbert-shipped.pt"


def stage_ship():
    """The shipped TW-BERT: adaptive.py's model on all seven training collections with the configuration its rotation
    chose (recorded in model/twbert/shipped-configuration.json, so the rotation's runs need not be kept)."""
    py("model.twbert.adaptive", "ship", "--configuration", str(MODEL_DIR / "twbert" / "shipped-configuration.json"),
       "--out", str(SHIPPED), "--runs-dir", str(WORK / "shipped-cache"), "--log", str(WORK / "shipped.log"))


def stage_export():
    with open(WORK / "parity-inputs-twbert.jsonl", "w") as f:
        run(["npx", "--no-install", "tsx", "model/encode-queries.ts"], stdout=f)
    with open(WORK / "parity-inputs-deepct.jsonl", "w") as f:
        run(["npx", "--no-install", "tsx", "model/encode-queries.ts", "--unigrams-only"], stdout=f)
    py("model.twbert.export", "--model", "twbert", "--checkpoint", str(SHIPPED))
    py("model.twbert.export", "--model", "deepct", "--checkpoint", str(WORK / "deepct.pt"))


DEV_SETS = [
    ("cranfield", "cranfield", f"{DATA}/cranfield/queries.tsv", f"{DATA}/cranfield/qrels.txt"),
    ("scifact-test", "scifact", f"{DATA}/scifact/queries.test.tsv", f"{DATA}/scifact/qrels.test.txt"),
]


def stage_evaluate():
    """End to end through the engine: `querylens weigh` -> `querylens search` -> `querylens eval`, on the dev sets,
    for plain BM25, both models, Bo1 and TW-BERT + Bo1 (figures for MODEL_CARD.md)."""
    out = WORK / "eval"
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for name, index, queries, qrels in DEV_SETS:
        runs = {}
        runs["bm25"] = queries
        for model in ["twbert", "deepct"]:
            weighted = out / f"{name}.{model}.indri"
            run([*CLI, "weigh", queries, "--model", model, "--device", "cpu", "--index", str(WORK / "idx" / index), "--out", str(weighted)])
            runs[model] = str(weighted)
        # Bo1, and TW-BERT + Bo1 (paper §5.3: the model weighs the query and Bo1's words, phase 4's factor applied).
        extra = {"bo1": ["--expand", "bo1"], "twbert-bo1": ["--expand", "bo1", "--weights", "twbert", "--device", "cpu"]}
        runs["bo1"] = runs["twbert-bo1"] = queries
        for label, qfile in runs.items():
            run_file = out / f"{name}.{label}.run"
            with open(run_file, "w") as f:
                run([*CLI, "search", "--index", str(WORK / "idx" / index), qfile, "--run-id", label, *extra.get(label, [])], stdout=f)
            res = subprocess.run([*CLI, "eval", qrels, str(run_file), "--metrics", "map,ndcg_cut_10,recall_1000"],
                                 cwd=ROOT, check=True, capture_output=True, text=True).stdout
            summary.append(f"{name}\t{label}\t" + "\t".join(l.split()[0] + "=" + l.split()[-1] for l in res.strip().splitlines()))
            print(summary[-1], flush=True)
    (out / "summary.tsv").write_text("\n".join(summary) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("stage", choices=["all", "data", "loco-data", "loco", "adaptive-data", "adaptive", "ship", "pretrain", "finetune",
                                     "deepct", "export", "evaluate"])
    p.add_argument("--pretrain-steps", type=int, default=360, help="pre-training steps of 64 sequences (360 ≈ a quarter epoch)")
    p.add_argument("--pretrain-continue-steps", type=int, default=0,
                   help="second pre-training phase, resumed from the first (0: none)")
    p.add_argument("--finetune-steps", type=int, default=600, help="steps of fine-tuning phase 1 (the phrase weight)")
    p.add_argument("--finetune-phases", default="1,2,3,4",
                   help="which fine-tuning phases to run (1 phrase weight, 2 prior, 3 offsets, 4 expansion factor)")
    a = p.parse_args(argv)
    t0 = time.time()
    stages = ["data", "pretrain", "deepct", "adaptive-data", "ship", "export", "evaluate"] if a.stage == "all" else [a.stage]
    for stage in stages:
        t = time.time()
        if stage == "data":
            stage_data()
        elif stage == "loco-data":
            stage_loco_data()
        elif stage == "loco":
            stage_loco()
        elif stage == "adaptive-data":
            stage_loco_data(WORK / "loco-x", WORK / "idx-f4")
        elif stage == "ship":
            stage_ship()
        elif stage == "adaptive":
            stage_adaptive()
        elif stage == "pretrain":
            py("model.twbert.pretrain", "--max-steps", str(a.pretrain_steps))
            if a.pretrain_continue_steps > 0:
                # Second phase, as the shipped build ran it: resume (weights, data position) with a new
                # schedule and a new MLM head, into pretrained2.pt (fine-tuning's and DeepCT's --init).
                py("model.twbert.pretrain", "--resume", str(WORK / "pretrained.pt"), "--out", str(WORK / "pretrained2.pt"),
                   "--max-steps", str(a.pretrain_continue_steps), "--lr", "7e-4", "--warmup", "50", "--fresh-mlm-head",
                   "--log", str(WORK / "pretrain2.log"))
        elif stage == "finetune":
            # The shipped recipe (MODEL_CARD.md), four phases on the frozen encoder; --finetune-phases runs a subset
            # (each phase starts from the previous one's checkpoint in model/.work).
            phases = {int(x) for x in a.finetune_phases.split(",") if x}
            if 1 in phases:
                # Phase 1 (run "N"): the head's feature weights frozen, only the head bias, the bi-gram bias and the
                # maxout layer learn; dev objective = the smaller of the two dev gains -> the phrase weight.
                py("model.twbert.finetune", "--max-steps", str(a.finetune_steps), "--head-weight-lr", "0", "--head-lr", "1e-2",
                   "--objective", "min", "--epochs", "30", "--train-eval", "150",
                   "--out", str(WORK / "twbert-phrase.pt"), "--log", str(WORK / "finetune-phrase.log"))
            # Phases 2 and 3 see CACM four times per epoch: the only training queries from outside SciFact's domain
            # (64 against 809), so that what is learned has to hold in two domains (MODEL_CARD.md, run GP).
            lexical = ["--head-weight-lr", "0", "--head-lr", "2e-3", "--bias-lr", "0", "--lexical", "--lexical-min-queries", "3",
                       "--lexical-whole-words", "--deviation-bound", "0.25", "--cache-features", "--objective", "min",
                       "--train-eval", "150", "--prior", str(WORK / "genericity.npy"), "--repeat", "cacm=4", "--eval-every", "25", "--seed", "11"]
            if 2 in phases:
                # Phase 2: the genericity prior (genericity.py) -- one scale learned to convergence on the training
                # queries, the last state kept (not a dev-picked step); phase 1's biases kept, no per-word offsets yet.
                py("model.twbert.finetune", "--init", str(WORK / "twbert-phrase.pt"), *lexical, "--lexical-lr", "0",
                   "--prior-lr", "3e-3", "--epochs", "10", "--select", "last",
                   "--out", str(WORK / "twbert-prior.pt"), "--log", str(WORK / "finetune-prior.log"))
            if 3 in phases:
                # Phase 3 (run "GP", seed 11): the prior kept, a per-wordpiece lexical offset learns (whole words of at
                # least 3 training queries, each weight moved by at most ±0.25 together with the prior).
                py("model.twbert.finetune", "--init", str(WORK / "twbert-prior.pt"), *lexical, "--prior-lr", "0",
                   "--lexical-lr", "5e-3", "--lexical-wd", "0.1", "--epochs", "15",
                   "--out", str(WORK / "twbert-offsets.pt"), "--log", str(WORK / "finetune-offsets.log"))
            if 4 in phases:
                # Phase 4 (TW-BERT + Bo1, paper §5.3): the model of phase 3 kept exactly; one factor for the weights of
                # the Bo1 expansion words it reads after the query, learned through BM25 on the Bo1-expanded training
                # queries (CACM x4 as in phases 2-3), 30 epochs, the last state kept (not a dev-picked step).
                py("model.twbert.finetune", "--init", str(WORK / "twbert-offsets.pt"), "--expansion", "--expansion-lr", "1e-2",
                   "--head-weight-lr", "0", "--bias-lr", "0", "--head-lr", "2e-3", "--cache-features",
                   "--train-files", "scifact-train-bo1,cacm-bo1", "--repeat", "cacm-bo1=4",
                   "--dev-files", "dev-cranfield-bo1,dev-scifact-test-bo1", "--objective", "min", "--eval-every", "200",
                   "--epochs", "30", "--select", "last", "--seed", "11",
                   "--out", str(WORK / "twbert.pt"), "--log", str(WORK / "finetune.log"))
        elif stage == "deepct":
            py("model.twbert.deepct")
        elif stage == "export":
            stage_export()
        elif stage == "evaluate":
            stage_evaluate()
        print(f"== {stage}: {(time.time() - t) / 60:.1f} min", flush=True)
    print(f"== total: {(time.time() - t0) / 60:.1f} min", flush=True)


if __name__ == "__main__":
    main()
