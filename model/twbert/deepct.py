"""DeepCT-Query baseline (Dai & Callan 2019/2020): per-wordpiece regression to term recall, a word's
weight being its first wordpiece's prediction. Same encoder, same pre-trained start, same training
queries and the same dev-set early stopping as TW-BERT, so the two are comparable.

Term recall of a query word = the fraction of the query's relevant documents that contain it
(engine statistics from export-training). Uni-grams only: DeepCT has no bi-grams.
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path

import torch

from .common import DEVICE, WORK, Timer, cpu_state, log, seed_all, setup_threads, load_own
from .finetune import DEV_FILES, TRAIN_FILES, dev_objective, evaluate, load_queries, predict, uniform_map
from .model import DeepCT, EncoderConfig


def term_recall(q) -> torch.Tensor | None:
    rel = torch.tensor(q.rel > 0)
    if int(rel.sum()) == 0:
        return None
    present = (q.tfn[rel] > 0).double().mean(0)  # [C]
    return present[q.occ_concept].float()  # per unigram occurrence


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--init", default=str(WORK / "pretrained.pt"))
    p.add_argument("--out", default=str(WORK / "deepct.pt"))
    p.add_argument("--minutes", type=float, default=None,
                   help="optional wall-clock cap (logged when it stops a run); by default --epochs is the budget")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--eval-every", type=int, default=50)
    p.add_argument("--max-per-file", type=int, default=None)
    p.add_argument("--data-dir", default=None, help="export-training JSONL folder (default model/.work/train)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--log", default=str(WORK / "deepct.log"))
    p.add_argument("--last-out", default=None, help="also save the last state here (device_parity.py compares it)")
    a = p.parse_args(argv)
    setup_threads()
    seed_all(a.seed)
    rng = random.Random(a.seed)
    logf = Path(a.log)
    ck = load_own(a.init)
    cfg = EncoderConfig(**ck["cfg"])
    model = DeepCT(cfg)
    # Start from the pre-trained encoder; the regression head starts fresh.
    model.encoder.load_state_dict({k[len("encoder."):]: v for k, v in ck["state"].items() if k.startswith("encoder.")})
    torch.nn.init.constant_(model.head.bias, 0.5)
    model.to(DEVICE)
    train = [(q, t) for q in load_queries(TRAIN_FILES, unigrams_only=True, max_per_file=a.max_per_file, data_dir=a.data_dir) if (t := term_recall(q)) is not None]
    dev = load_queries(DEV_FILES, unigrams_only=True, max_per_file=a.max_per_file, data_dir=a.data_dir)
    uni = uniform_map(dev)
    log(logf, f"deepct: {len(train)} training queries, {sum(len(t) for _, t in train)} words; uniform dev {uni}; device {DEVICE}")
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    timer = Timer()
    start = evaluate(model, dev)
    best = (dev_objective(start, uni), 0, start)
    torch.save({"cfg": cfg.to_dict(), "state": cpu_state(model), "step": 0, "dev": start}, a.out)
    log(logf, f"step 0 dev {start} objective {best[0]:+.4f}")
    step = 0
    for epoch in range(a.epochs):
        rng.shuffle(train)
        for i in range(0, len(train) - a.batch + 1, a.batch):
            chunk = train[i : i + a.batch]
            w = predict(model, [q for q, _ in chunk])
            loss = torch.cat([(w[j, : len(t)] - t) ** 2 for j, (_, t) in enumerate(chunk)]).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 20 == 0:
                log(logf, f"epoch {epoch} step {step} mse {loss.item():.4f}")
            if step % a.eval_every == 0:
                maps = evaluate(model, dev)
                obj = dev_objective(maps, uni)
                log(logf, f"step {step} dev {maps} objective {obj:+.4f}")
                if obj > best[0]:
                    best = (obj, step, maps)
                    torch.save({"cfg": cfg.to_dict(), "state": cpu_state(model), "step": step, "dev": maps}, a.out)
            if a.minutes is not None and timer.minutes() > a.minutes:
                break
        if a.minutes is not None and timer.minutes() > a.minutes:
            log(logf, f"stopped by the --minutes {a.minutes} cap at step {step}")
            break
    if a.last_out:
        torch.save({"cfg": cfg.to_dict(), "state": cpu_state(model), "step": step}, a.last_out)
    final = load_own(a.out)
    final.update({"uniform_dev": uni, "steps_run": step, "minutes": timer.minutes(),
                  "description": "DeepCT-Query baseline: per-word regression to term recall (querylens)"})
    torch.save(final, a.out)
    log(logf, f"deepct done: {step} steps in {timer.minutes():.1f} min; best step {best[1]} dev {best[2]} objective {best[0]:+.4f}")


if __name__ == "__main__":
    main()
