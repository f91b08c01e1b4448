"""TW-BERT and DeepCT-Query models: a small BERT-style encoder with a GloVe-initialised 100-d
wordpiece embedding (ALBERT-style factorisation, then a 100->H projection), and two heads.

Size (see model/README.md for the latency measurements that justify it): 2 layers, H=128, 4 heads,
FFN 512. The budget is 5 ms p50 per query on CPU; we measured 0.77 ms for 4 layers/H=256
with onnxruntime-node, so latency is not the constraint. What constrains the size is training on 2
shared CPU cores within ~60-90 minutes and keeping both ONNX files under 40 MB together: the 30,522 x
100 embedding alone is 12 MB, so each encoder has ~1.4 M further parameters.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn


@dataclass
class EncoderConfig:
    vocab_size: int = 30522
    embedding_dim: int = 100
    hidden: int = 128
    layers: int = 2
    heads: int = 4
    ffn: int = 512
    max_tokens: int = 128
    dropout: float = 0.1

    def to_dict(self) -> dict:
        return asdict(self)


class Encoder(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.cfg = cfg
        self.word = nn.Embedding(cfg.vocab_size, cfg.embedding_dim, padding_idx=0)
        self.project = nn.Linear(cfg.embedding_dim, cfg.hidden)
        self.position = nn.Embedding(cfg.max_tokens, cfg.hidden)
        self.norm = nn.LayerNorm(cfg.hidden)
        self.dropout = nn.Dropout(cfg.dropout)
        layer = nn.TransformerEncoderLayer(
            cfg.hidden, cfg.heads, cfg.ffn, cfg.dropout, activation="gelu", batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        nn.init.normal_(self.position.weight, 0.0, 0.02)

    def init_from_glove(self, rows: torch.Tensor, has_vector: torch.Tensor) -> None:
        """Rows with a GloVe vector start from it; the others start small and random, at the same scale."""
        with torch.no_grad():
            scale = rows[has_vector].std().item()
            self.word.weight.normal_(0.0, scale * 0.5)
            self.word.weight[has_vector] = rows[has_vector]
            self.word.weight[0].zero_()

    def forward(self, ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.project(self.word(ids)) + self.position(positions)
        x = self.dropout(self.norm(x))
        return self.encoder(x, src_key_padding_mask=attention_mask == 0)


def mean_pool(states: torch.Tensor, ngram_mask: torch.Tensor) -> torch.Tensor:
    """states [B,T,H], ngram_mask [B,G,T] (1 where a wordpiece belongs to the n-gram) -> [B,G,H]."""
    counts = ngram_mask.sum(-1, keepdim=True).clamp(min=1.0)
    return torch.bmm(ngram_mask, states) / counts


class TWBert(nn.Module):
    """TW-BERT (Samel et al. 2023, §3.1): mean-pool each n-gram's wordpiece states, linear, ReLU.

    One addition: the linear layer also sees the n-gram's order (`ngram_order`: 0 = uni-gram,
    1 = bi-gram), i.e. a learned bias for bi-grams. Without it the head is linear in the mean-pooled
    states, so a bi-gram's pre-activation is (for equal piece counts) exactly the mean of its two
    uni-grams' and the model cannot weigh phrases apart from their words, while on our training
    data a bi-gram wants a clearly different weight from its words.

    Optional deeper head (`head_hidden` > 0, a documented deviation from §3.1): the linear layer plus
    a residual 2-layer MLP (LayerNorm, Linear, GELU, Linear; its last layer starts at 0, so the model
    starts exactly as the linear head) on the pooled n-gram features; with `head_embed` those features
    also include the mean of the n-gram's (GloVe-initialised) input wordpiece embeddings.

    Optional lexical offset (`lexical`, another documented deviation): one learned scalar per wordpiece
    (a [vocab, 1] table starting at 0), mean-pooled over the n-gram's pieces and added to the
    pre-activation. Only pieces that occur in training queries ever move, so on a collection whose
    words the training queries never used the model stays at its pooled-state weights: a per-term
    correction that cannot spread to unseen vocabulary the way a change of the encoder or an MLP on
    embeddings does.

    Optional genericity prior (`prior`, with `lexical`): a fixed per-wordpiece feature (genericity.py: how
    common the word is across unrelated domains, standardised) times a learned scale, plus a shift (held at 0
    by the shipped recipe), added to every piece's lexical offset. Parameters for the whole vocabulary, so unlike the
    per-piece offsets it reaches words no training query used. `bake_prior()` folds it into the lexical
    table, so the exported graph (and its ONNX interface) is the same as without it.

    `deviation_bound` > 0 passes the sum of the MLP and lexical corrections through
    bound · tanh(x / bound), so no per-term correction moves a weight by more than `bound`.

    Optional expansion scale (`expansion`, for TW-BERT + Bo1, paper §5.3): one learned factor
    exp(expansion_log_scale) for the weights of the Bo1 expansion words the model reads after the query.
    It is not part of the ONNX graph (whose input does not say where the query ends): export writes it to
    config.json (`expansionScale`) and the runtime applies it (server/model/weighted-query.ts).
    """

    def __init__(self, cfg: EncoderConfig, head_hidden: int = 0, head_embed: bool = False,
                 lexical: bool = False, deviation_bound: float = 0.0, prior: bool = False, expansion: bool = False):
        super().__init__()
        self.encoder = Encoder(cfg)
        self.head = nn.Linear(cfg.hidden, 1)
        # Start near the uniform weight 1 that pre-training pushes towards.
        nn.init.normal_(self.head.weight, 0.0, 0.01)
        nn.init.constant_(self.head.bias, 1.0)
        self.bigram_bias = nn.Parameter(torch.zeros(1))
        self.head_hidden, self.head_embed = head_hidden, head_embed
        if head_hidden > 0:
            feats = cfg.hidden + (cfg.embedding_dim if head_embed else 0) + 1
            self.mlp = nn.Sequential(nn.LayerNorm(feats - 1), nn.Linear(feats - 1, head_hidden), nn.GELU())
            self.mlp_out = nn.Linear(head_hidden + 1, 1)
            nn.init.zeros_(self.mlp_out.weight)
            nn.init.zeros_(self.mlp_out.bias)
        self.lexical_on, self.deviation_bound = lexical, deviation_bound
        if lexical:
            self.lexical = nn.Embedding(cfg.vocab_size, 1)
            nn.init.zeros_(self.lexical.weight)
        if prior and not lexical:
            raise ValueError("the genericity prior lives in the lexical table: it needs lexical=True")
        self.prior_on = prior
        if prior:
            self.register_buffer("prior_feature", torch.zeros(cfg.vocab_size))
            self.prior_scale = nn.Parameter(torch.zeros(1))
            self.prior_shift = nn.Parameter(torch.zeros(1))
        self.expansion_on = expansion
        if expansion:
            self.expansion_log_scale = nn.Parameter(torch.zeros(1))

    def head_config(self) -> dict:
        return {"head_hidden": self.head_hidden, "head_embed": self.head_embed,
                "lexical": self.lexical_on, "deviation_bound": self.deviation_bound, "prior": self.prior_on,
                "expansion": self.expansion_on}

    def expansion_scale(self) -> torch.Tensor:
        """The factor of the expansion words' weights (1 without `expansion`)."""
        return self.expansion_log_scale.exp() if self.expansion_on else torch.ones(1)

    def scale_expansion(self, weights: torch.Tensor, is_expansion: torch.Tensor) -> torch.Tensor:
        """weights [B,G], is_expansion [B,G] bool -> the weights with the expansion words' multiplied by the scale."""
        if not self.expansion_on:
            return weights
        return torch.where(is_expansion, weights * self.expansion_scale(), weights)

    def lexical_table(self) -> torch.Tensor:
        """[vocab]: each wordpiece's offset (its learned entry, plus the genericity prior when on)."""
        table = self.lexical.weight.squeeze(-1)
        if self.prior_on:
            table = table + self.prior_scale * self.prior_feature + self.prior_shift
        return table

    def lexical_offsets(self, ids, ngram_mask):
        """[B,G]: the mean of the n-gram's per-wordpiece lexical offsets."""
        if self.prior_on:
            return mean_pool(self.lexical_table()[ids].unsqueeze(-1), ngram_mask).squeeze(-1)
        return mean_pool(self.lexical(ids), ngram_mask).squeeze(-1)

    def bake_prior(self) -> None:
        """Fold the genericity prior into the lexical table (for export): same outputs, plain table lookup."""
        if not self.prior_on:
            return
        with torch.no_grad():
            self.lexical.weight.copy_(self.lexical_table().unsqueeze(-1))
        self.prior_on = False

    def features(self, ids, attention_mask, ngram_mask):
        """Pooled n-gram features [B,G,F]: the final states (first cfg.hidden columns), then, with
        head_embed, the input wordpiece embeddings."""
        pooled = mean_pool(self.encoder(ids, attention_mask), ngram_mask)
        if self.head_embed:
            pooled = torch.cat([pooled, mean_pool(self.encoder.word(ids), ngram_mask)], -1)
        return pooled

    def score(self, feats, ngram_order=None, lexical=None):
        """Weights [B,G] from pooled features; `lexical` [B,G] = lexical_offsets() when the model has them."""
        hidden = self.head.in_features
        z = self.head(feats[..., :hidden]).squeeze(-1)
        if ngram_order is not None:
            z = z + self.bigram_bias * ngram_order
        correction = None
        if self.head_hidden > 0:
            order = ngram_order if ngram_order is not None else torch.zeros_like(z)
            h = self.mlp(feats)
            correction = self.mlp_out(torch.cat([h, order.unsqueeze(-1)], -1)).squeeze(-1)
        if lexical is not None:
            correction = lexical if correction is None else correction + lexical
        if correction is not None:
            if self.deviation_bound > 0:
                correction = self.deviation_bound * torch.tanh(correction / self.deviation_bound)
            z = z + correction
        return torch.relu(z)

    def forward(self, ids, attention_mask, ngram_mask, ngram_order=None):
        lexical = self.lexical_offsets(ids, ngram_mask) if self.lexical_on else None
        return self.score(self.features(ids, attention_mask, ngram_mask), ngram_order, lexical)


class DeepCT(nn.Module):
    """DeepCT-Query: per-wordpiece regression to term recall; a word's weight is its first wordpiece's
    prediction. Exported with the same inputs as TW-BERT: each (uni-gram) row of ngram_mask selects
    its first wordpiece."""

    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.encoder = Encoder(cfg)
        self.head = nn.Linear(cfg.hidden, 1)

    def token_scores(self, ids, attention_mask):
        return self.head(self.encoder(ids, attention_mask)).squeeze(-1)

    def forward(self, ids, attention_mask, ngram_mask, ngram_order=None):
        scores = self.token_scores(ids, attention_mask)  # [B,T]
        first = torch.argmax((ngram_mask > 0).to(torch.int32), dim=-1)  # [B,G], first wordpiece
        picked = torch.gather(scores, 1, first)
        # Regression to a recall in [0,1]; clamp so the engine never sees a negative weight.
        return torch.clamp(picked, min=0.0)


class MLMHead(nn.Module):
    """Predicts masked wordpieces through the (tied) 100-d embedding, as ALBERT does."""

    def __init__(self, cfg: EncoderConfig, embedding: nn.Embedding):
        super().__init__()
        self.transform = nn.Sequential(nn.Linear(cfg.hidden, cfg.embedding_dim), nn.GELU(), nn.LayerNorm(cfg.embedding_dim))
        self.embedding = embedding
        self.bias = nn.Parameter(torch.zeros(cfg.vocab_size))
        # GloVe rows have norms of ~5-7: start the output small so the first logits are not huge.
        nn.init.constant_(self.transform[2].weight, 0.1)

    def forward(self, states):
        return self.transform(states) @ self.embedding.weight.t() + self.bias


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())



# The statistics a collection-aware model reads (server/model/statistic-names.ts STATISTIC_NAMES, in that order):
# the first five describe an n-gram in the collection; the rest, what TW-BERT + Bo1 reads to decide how much to expand.
STAT_NAMES = ["idf", "ictf", "pairRatio", "topShare", "bo1"]
EXPANSION_STAT_NAMES = ["expansion", "bo1Weight", "fbShare", "fbCooccur", "fbGap", "fbCoverage"]
ALL_STAT_NAMES = STAT_NAMES + EXPANSION_STAT_NAMES
# Not a statistic of the collection: how common the word is across reference corpora (genericity.py), read from the
# table the model ships with (server/model/genericity.ts). A model with `genericity` reads it after the others.
GENERICITY = "genericity"
FULL_STAT_NAMES = ALL_STAT_NAMES + [GENERICITY]
STAT_FEATURES = 8
GENERICITY_FEATURES = 2


def stat_features(stats: torch.Tensor, order: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """[R,G,>=5] statistics (idf, ictf, pairRatio, topShare, bo1, …; server/model/collection-statistics.ts), the n-gram
    order and the valid mask -> [R,G,STAT_FEATURES] model features. idf and ictf also relative to the row's (the
    query's, or its window's) largest and as a z-score within it: a word's rarity matters against the other words of
    its query, and the absolute scale depends on the collection's size."""
    neg = torch.finfo(stats.dtype).min
    idf, ictf = stats[..., 0], stats[..., 1]
    vf = valid.to(stats.dtype)
    count = vf.sum(-1, keepdim=True).clamp(min=1.0)
    idf_max = torch.where(valid, idf, torch.full_like(idf, neg)).amax(-1, keepdim=True).clamp(min=1e-3)
    ictf_max = torch.where(valid, ictf, torch.full_like(ictf, neg)).amax(-1, keepdim=True).clamp(min=1e-3)
    mean = (idf * vf).sum(-1, keepdim=True) / count
    sd = (((idf - mean) ** 2) * vf).sum(-1, keepdim=True).div(count).sqrt()
    feats = torch.stack([idf / idf_max, (idf - mean) / (sd + 0.1), ictf / ictf_max, idf / 10.0,
                         stats[..., 2], stats[..., 3], stats[..., 4], order], -1)
    return feats * vf.unsqueeze(-1)


def genericity_features(g: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """[R,G] genericity (mean log document share across the reference corpora, about -10 for an unseen word to -0.4)
    -> [R,G,2]: its level (/10) and a z-score within the row, as idf is: a word more generic than the rest of its
    query is the one to weigh down."""
    vf = valid.to(g.dtype)
    count = vf.sum(-1, keepdim=True).clamp(min=1.0)
    mean = (g * vf).sum(-1, keepdim=True) / count
    sd = (((g - mean) ** 2) * vf).sum(-1, keepdim=True).div(count).sqrt()
    return torch.stack([g / 10.0, (g - mean) / (sd + 0.5)], -1) * vf.unsqueeze(-1)


GATE_SUMMARY_FEATURES = 9


def gate_summary_features(stats: torch.Tensor, order: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """[R,G,>=11] statistics (ALL_STAT_NAMES order) -> [R,9]: what a query-level expansion decision can read of the
    whole first pass and of Bo1's words, as explicit numbers beside the gate's pooled state: the score gap and coverage
    of the feedback documents, the Bo1 words' mean share of the feedback documents, co-occurrence there with the query's
    words and w', the query words' mean share of the top 10 and mean idf (/10), and how many query and Bo1 words (/10)."""
    is_exp = stats[..., 5] > 0.5
    words = (valid & ~is_exp & (order == 0)).to(stats.dtype)
    bo1 = (valid & is_exp).to(stats.dtype)
    vf = valid.to(stats.dtype)

    def mean(x, m):
        return (x * m).sum(-1) / m.sum(-1).clamp(min=1.0)

    return torch.stack([mean(stats[..., 9], vf), mean(stats[..., 10], vf), mean(stats[..., 7], bo1), mean(stats[..., 8], bo1),
                        mean(stats[..., 6], bo1), mean(stats[..., 3], words), mean(stats[..., 0], words) / 10.0,
                        words.sum(-1) / 10.0, bo1.sum(-1) / 10.0], -1)


class StatsTWBert(nn.Module):
    """The collection-aware TW-BERT head (issue 16; model/twbert/loco.py trains it).

    Per n-gram: its pooled contextual state from the frozen encoder (`context`; off = an ablation that reads the
    statistics only) and its statistics in the collection (stat_features). One BISON-style self-attention layer
    over the query's n-grams: the logits get a learned function of each key's statistics (Shan et al., BISON:
    BM25-weighted self-attention), so what an n-gram attends to depends on how informative the others are *here*.
    The output is a bounded factor on the fixed phrase rule's weight: w = base · exp(bound · tanh(δ / bound)),
    base 1 for a uni-gram and a learned base (starting at 0.25) for a bi-gram; δ starts at 0, so an untrained model
    is the phrase rule. No parameter is keyed by word identity.

    With `expansion` (TW-BERT + Bo1 that decides per query and per word how much to expand; model/twbert/adaptive.py
    trains it) the model also reads EXPANSION_STAT_NAMES: which words are Bo1's, their Bo1 weight w', how they occur
    in the feedback documents and with the query's words there, and how far the feedback documents stand out. A
    query-level gate g = 2·sigmoid(γ) ∈ (0, 2), γ a learned function of the query's pooled n-gram states, says how
    much this query is expanded; then a Bo1 word weighs s · g · w' · exp(bound · tanh(δ / bound)) (s a learned
    scale), and a query word (1 + g · w') · exp(…), as Bo1 adds w' to an original term. γ and δ start at 0 and s at
    1, so an untrained model is the phrase rule plus Bo1's own weights.

    With `genericity` the model also reads each n-gram's genericity (GENERICITY, after the other statistics): two
    more statistic features (genericity_features). Off by default, so a checkpoint or config without it loads as before.
    """

    def __init__(self, hidden: int = 128, dim: int = 32, bound: float = 1.0, context: bool = True, expansion: bool = False,
                 genericity: bool = False, gate_summary: bool = False):
        super().__init__()
        self.hidden, self.dim, self.bound, self.context, self.expansion = hidden, dim, bound, context, expansion
        self.genericity = genericity
        if gate_summary and not expansion:
            raise ValueError("the gate summary is a signal of the expansion gate: it needs expansion=True")
        self.gate_summary_on = gate_summary
        features = STAT_FEATURES + (len(EXPANSION_STAT_NAMES) if expansion else 0) + (GENERICITY_FEATURES if genericity else 0)
        self.ctx = nn.Linear(hidden, dim)
        self.stat = nn.Sequential(nn.Linear(features, dim), nn.GELU(), nn.Linear(dim, dim))
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.key_bias = nn.Sequential(nn.Linear(features, 16), nn.GELU(), nn.Linear(16, 1))
        self.out = nn.Sequential(nn.LayerNorm(2 * dim), nn.Linear(2 * dim, dim), nn.GELU(), nn.Linear(dim, 1))
        nn.init.zeros_(self.out[-1].weight)
        nn.init.zeros_(self.out[-1].bias)
        self.bigram_log_base = nn.Parameter(torch.tensor(math.log(0.25)))
        if expansion:
            self.gate = nn.Sequential(nn.LayerNorm(2 * dim), nn.Linear(2 * dim, 1))
            nn.init.zeros_(self.gate[-1].weight)
            nn.init.zeros_(self.gate[-1].bias)
            self.expansion_log_scale = nn.Parameter(torch.zeros(()))
        if gate_summary:
            # Starts at 0: the gate is the same as without it until training moves it.
            self.gate_summary = nn.Linear(GATE_SUMMARY_FEATURES, 1)
            nn.init.zeros_(self.gate_summary.weight)
            nn.init.zeros_(self.gate_summary.bias)
        self.encoder = None  # attached for export (the frozen pre-trained encoder)

    @property
    def stat_names(self) -> list:
        """The statistics this model reads, in the order of its statistics input (config.json `statistics.names`)."""
        return (ALL_STAT_NAMES if self.expansion else STAT_NAMES) + ([GENERICITY] if self.genericity else [])

    @property
    def stat_columns(self) -> list:
        """Where this model's statistics are in a FULL_STAT_NAMES-ordered tensor (what loco.py loads)."""
        return [FULL_STAT_NAMES.index(n) for n in self.stat_names]

    def head_config(self) -> dict:
        config = {"kind": "stats", "hidden": self.hidden, "dim": self.dim, "bound": self.bound, "context": self.context,
                  "expansion": self.expansion}
        if self.genericity:
            config["genericity"] = True
        if self.gate_summary_on:
            config["gate_summary"] = True
        return config

    def score(self, feats, stats, order, valid):
        """feats [R,G,H] pooled states, stats [R,G,len(stat_names)] in stat_names' order, order [R,G] (1 = bi-gram),
        valid [R,G] bool -> weights [R,G]."""
        if self.genericity:
            g, stats = stats[..., len(self.stat_names) - 1], stats[..., : len(self.stat_names) - 1]
        else:
            stats = stats[..., : len(self.stat_names)]
        if self.expansion:
            # A pair reaching past the query's end (statistic `expansion` on a bi-gram) is never weighed: training
            # never sees one, so the model leaves it out of its attention and its pooled query state.
            valid = valid & ~((order > 0) & (stats[..., len(STAT_NAMES)] > 0.5))
        x = stat_features(stats, order, valid)
        if self.expansion:
            x = torch.cat([x, stats[..., len(STAT_NAMES):] * valid.unsqueeze(-1).to(stats.dtype)], -1)
        if self.genericity:
            x = torch.cat([x, genericity_features(g, valid)], -1)
        e = self.stat(x)
        if self.context:
            e = e + self.ctx(feats)
        logits = self.q(e) @ self.k(e).transpose(1, 2) / math.sqrt(self.dim) + self.key_bias(x).transpose(1, 2)
        logits = logits.masked_fill(~valid.unsqueeze(1), -1e4)
        o = torch.softmax(logits, -1) @ self.v(e)
        h = torch.cat([e, o], -1)
        delta = self.out(h).squeeze(-1)
        factor = torch.exp(self.bound * torch.tanh(delta / self.bound))
        base = torch.where(order > 0, self.bigram_log_base.exp().expand_as(order), torch.ones_like(order))
        if self.expansion:
            vf = valid.to(h.dtype).unsqueeze(-1)
            pooled = (h * vf).sum(1) / vf.sum(1).clamp(min=1.0)  # [R, 2·dim]: the query as a whole
            gate_logit = self.gate(pooled)  # [R, 1]
            if self.gate_summary_on:
                gate_logit = gate_logit + self.gate_summary(gate_summary_features(stats, order, valid))
            self.last_gate_logit = gate_logit  # read by adaptive.py's gate loss (training only)
            gate = 2.0 * torch.sigmoid(gate_logit)
            is_exp = stats[..., len(STAT_NAMES)] > 0.5
            w_prime = stats[..., len(STAT_NAMES) + 1]
            expanded = self.expansion_log_scale.exp() * gate * w_prime
            base = torch.where(is_exp, expanded, torch.where(order > 0, base, 1.0 + gate * w_prime))
        w = base * factor
        return torch.where(valid, w, torch.zeros_like(w))

    def forward(self, ids, attention_mask, ngram_mask, ngram_order, ngram_stats):
        """The exported graph: encoder inputs, the n-gram masks and order, and each n-gram's statistics."""
        valid = ngram_mask.sum(-1) > 0
        feats = mean_pool(self.encoder(ids, attention_mask), ngram_mask)
        w = self.score(feats, ngram_stats, ngram_order, valid)
        if not self.context:
            # A statistics-only model still takes the encoder's inputs (one ONNX interface for the runtime):
            # without a use of them the exporter would drop input_ids and attention_mask from the graph.
            w = w + 0.0 * feats.sum(-1)
        return w
