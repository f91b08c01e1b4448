"""Pre-training (TW-BERT §3.4.1): masked-language modelling where masking a wordpiece masks every
occurrence of it in the sequence (so the model cannot copy it from another position), plus the
uniform-weight objective: MSE pushing every n-gram weight to 1, so that an untrained query starts
as plain uniform BM25.

Input: model/.work/pretrain.jsonl (npx tsx model/prepare-pretrain.ts). Output: model/.work/pretrained.pt.
"""
from __future__ import annotations

import argparse
import random

import torch
import torch.nn.functional as F

from .common import DEVICE, SPECIAL_IDS, MASK_ID, WORK, Timer, cpu_state, load_glove_rows, log, pad_batch, read_jsonl, seed_all, setup_threads, load_own
from .model import EncoderConfig, MLMHead, TWBert, count_parameters

MASK_RATE = 0.15


def mask_all_occurrences(ids: list[int], rng: random.Random, vocab_size: int):
    """Picks ~15% of the distinct (non-special) wordpieces and masks every occurrence; 80% [MASK],
    10% random piece, 10% unchanged (BERT's recipe). Returns (input ids, labels with -100 elsewhere)."""
    distinct = sorted({t for t in ids if t not in SPECIAL_IDS})
    if not distinct:
        return list(ids), [-100] * len(ids)
    k = max(1, round(len(distinct) * MASK_RATE))
    chosen = set(rng.sample(distinct, k))
    out, labels = list(ids), [-100] * len(ids)
    for i, t in enumerate(ids):
        if t in chosen:
            labels[i] = t
            r = rng.random()
            if r < 0.8:
                out[i] = MASK_ID
            elif r < 0.9:
                out[i] = rng.randrange(1000, vocab_size)
    return out, labels


def make_batch(examples, rng, vocab_size):
    inputs, labels = [], []
    for ex in examples:
        x, y = mask_all_occurrences(ex["ids"], rng, vocab_size)
        inputs.append(x)
        labels.append(y)
    ids, att, nmask, valid = pad_batch(inputs, [ex["ngrams"] for ex in examples])
    lab = torch.full(ids.shape, -100, dtype=torch.long)
    for i, y in enumerate(labels):
        lab[i, : len(y)] = torch.tensor(y)
    return ids, att, nmask, valid, lab


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=str(WORK / "pretrain.jsonl"))
    p.add_argument("--out", default=str(WORK / "pretrained.pt"))
    p.add_argument("--max-steps", type=int, default=360,
                   help="optimizer steps; the learning rate decays linearly over them (360: what the shipped encoder saw). "
                        "A step budget, not a time budget, so that a rebuild on a faster or busier machine trains the same model")
    p.add_argument("--minutes", type=float, default=None,
                   help="optional wall-clock cap: stop early (logged as such) if the steps take longer than this")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--limit", type=int, default=None, help="read only the first N sequences (smoke test)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--hidden", type=int, default=EncoderConfig.hidden)
    p.add_argument("--layers", type=int, default=EncoderConfig.layers)
    p.add_argument("--dropout", type=float, default=EncoderConfig.dropout,
                   help="encoder dropout (0: deterministic up to float noise, as device_parity.py compares CPU and GPU)")
    p.add_argument("--log", default=str(WORK / "pretrain.log"))
    p.add_argument("--resume", default=None,
                   help="continue from this checkpoint (weights, MLM head if saved, data position) with a fresh "
                        "schedule: --max-steps of linear decay from --lr after a short warm-up")
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--fresh-mlm-head", action="store_true",
                   help="with --resume: start the MLM head anew even if the checkpoint has one (as the shipped build did: "
                        "its first pre-training run saved no MLM head)")
    a = p.parse_args(argv)
    setup_threads()
    seed_all(a.seed)
    rng = random.Random(a.seed)
    from pathlib import Path

    logf = Path(a.log)
    data = read_jsonl(Path(a.data), a.limit)
    rng.shuffle(data)
    resume = load_own(a.resume) if a.resume else None
    cfg = EncoderConfig(**resume["cfg"]) if resume else EncoderConfig(hidden=a.hidden, layers=a.layers, ffn=4 * a.hidden, dropout=a.dropout)
    model = TWBert(cfg)
    glove_rows = 0
    if resume:
        model.load_state_dict(resume["state"], strict=False)
    else:
        try:
            rows, has = load_glove_rows(cfg.vocab_size, cfg.embedding_dim)
            model.encoder.init_from_glove(rows, has)
            glove_rows = int(has.sum())
        except FileNotFoundError:
            glove_rows = 0  # smoke tests may run without the GloVe extraction
    mlm = MLMHead(cfg, model.encoder.word)
    if resume and "mlm_head" in resume and not a.fresh_mlm_head:
        mlm.load_state_dict(resume["mlm_head"])
    model.to(DEVICE)
    mlm.to(DEVICE)
    params = list(model.parameters()) + [q for n, q in mlm.named_parameters() if not n.startswith("embedding")]
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=0.01)
    # Same shuffle as the run being resumed (same seed), so a continuation starts at the first sequence
    # that run did not see; its step count carries on.
    prev_steps = int(resume.get("total_steps", resume["step"])) if resume else 0
    log(logf, f"pretrain: {len(data)} sequences, encoder {count_parameters(model)} params, GloVe rows {glove_rows}, "
              f"cfg {cfg.to_dict()}, device {DEVICE}" + (f", resumed from {a.resume} after {prev_steps} steps" if resume else ""))
    timer = Timer()
    warmup = a.warmup
    step = 0
    pos = (prev_steps * a.batch) % max(1, len(data) - a.batch)
    ema_mlm = ema_mse = ema_acc = None
    capped = False
    model.train()
    while step < a.max_steps:
        if a.minutes is not None and timer.minutes() >= a.minutes:
            capped = True
            break
        if pos + a.batch > len(data):
            rng.shuffle(data)
            pos = 0
        batch = data[pos : pos + a.batch]
        pos += a.batch
        ids, att, nmask, valid, lab = (x.to(DEVICE) for x in make_batch(batch, rng, cfg.vocab_size))
        states = model.encoder(ids, att)
        sel = lab != -100
        logits = mlm(states[sel])
        mlm_loss = F.cross_entropy(logits, lab[sel])
        weights = torch.relu(model.head(torch.bmm(nmask, states) / nmask.sum(-1, keepdim=True).clamp(min=1)).squeeze(-1))
        mse = ((weights - 1.0) ** 2)[valid].mean() if valid.any() else torch.zeros((), device=DEVICE)
        loss = mlm_loss + mse
        # Linear warm-up, then linear decay over the step budget (to 5 % of --lr).
        lr = a.lr * min(1.0, (step + 1) / warmup) * max(0.05, 1.0 - step / a.max_steps)
        for g in opt.param_groups:
            g["lr"] = lr
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        acc = (logits.argmax(-1) == lab[sel]).float().mean().item()
        ema = lambda old, new: new if old is None else 0.98 * old + 0.02 * new
        ema_mlm, ema_mse, ema_acc = ema(ema_mlm, mlm_loss.item()), ema(ema_mse, mse.item()), ema(ema_acc, acc)
        step += 1
        if step % 50 == 0 or step == 1:
            log(logf, f"step {step} min {timer.minutes():.1f} lr {lr:.2e} mlm {ema_mlm:.3f} acc {ema_acc:.3f} mse {ema_mse:.4f}")
        if step % 200 == 0:
            torch.save({"cfg": cfg.to_dict(), "state": cpu_state(model), "mlm_head": cpu_state(mlm), "step": step,
                        "total_steps": prev_steps + step}, a.out)
    torch.save({"cfg": cfg.to_dict(), "state": cpu_state(model), "mlm_head": cpu_state(mlm), "step": step,
                "total_steps": prev_steps + step,
                "mlm": ema_mlm, "mlm_acc": ema_acc, "mse": ema_mse, "minutes": timer.minutes(),
                "sequences": len(data)}, a.out)
    if capped:
        log(logf, f"pretrain: stopped by the --minutes {a.minutes} cap after {step} of {a.max_steps} steps")
    log(logf, f"pretrain done: {step} steps (total {prev_steps + step}), {timer.minutes():.1f} min, mlm {ema_mlm:.3f} acc {ema_acc:.3f} mse {ema_mse:.4f} -> {a.out}")


if __name__ == "__main__":
    main()
