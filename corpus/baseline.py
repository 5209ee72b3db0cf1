"""A CRF sanity check of the dataset (the seed paper's Table 3 baseline row), over plain token sequences.

The paper validates its corpus by training taggers on it; a lead should see that before export. This
module is the whole model: word features, training (``sklearn-crfsuite``), prediction with per-token
marginals and span confidences, a deterministic k-fold split, cross-validated predictions (every
sentence judged by a model that never saw it) and ``seqeval`` strict IOB2 span scoring. It opens no
file and no database: callers hand it ``LabelledSequence`` records, so the dataset check, the
leaderboard, model suggestions and the review-suspects list all train and score the same way.

Affixes are taken over extended grapheme clusters (``regex``'s ``\\X``), so a nukta or a virama
conjunct is never cut from its consonant; no feature uses ``\\w``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import random
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from corpus.bio import tags_to_spans
from corpus.tokens import TOKENIZER_SIGNATURE, normalize

FEATURES_NAME = "crf-word"
FEATURES_VERSION = "1.0"
FEATURES_SIGNATURE = (f"{FEATURES_NAME}/{FEATURES_VERSION}"
                      "(lower,token-if-cased,prefix1-3,suffix1-3,script,shape,position;±2)")
ASPECT_TYPE = "ASP"  # seqeval needs a typed tag; the project has one aspect type
SCORING = "seqeval strict IOB2 span P/R/F1 (micro)"
CROSS_VALIDATION = "cross-validation over train"
HELD_OUT = "train -> test split"

_GRAPHEME = regex.compile(r"\X")
_ZERO_WIDTH_JOINERS = frozenset("\u200c\u200d")


@dataclass(frozen=True)
class LabelledSequence:
    """One sentence for the model: ``key`` is unique in a data set (``domain/split/sentence id``)."""

    key: str
    domain: str
    split: str
    tokens: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class CrfSettings:
    """Everything a figure depends on besides the data; ``signature`` prints it."""

    c1: float = 0.1
    c2: float = 0.1
    # 50, not 100: L-BFGS has converged by then on these features (loss within 0.3-0.6% of 100 iterations on
    # a domain's train split, 1.2% on a paper-scale project's 47k gold items; the same F1 on the benchmark's
    # corpus) at half the training time (bench/bench_baseline.py).
    max_iterations: int = 50
    folds: int = 5
    seed: int = 13

    def signature(self, protocols: dict[str, str] | None = None) -> str:
        parts = [
            f"crf=sklearn-crfsuite/{_version('sklearn-crfsuite')}+python-crfsuite/{_version('python-crfsuite')}",
            "algorithm=lbfgs", f"c1={self.c1:g}", f"c2={self.c2:g}", f"iterations={self.max_iterations}",
            f"features={FEATURES_SIGNATURE}", f"tokenizer={TOKENIZER_SIGNATURE}", f"folds={self.folds}",
            f"seed={self.seed}", f"scoring={SCORING} seqeval/{_version('seqeval')}",
        ]
        if protocols:
            parts.append("eval=" + ",".join(f"{side}:{how}" for side, how in protocols.items()))
        return "|".join(parts)


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


# ---------------------------------------------------------------- features


def char_class(c: str) -> str:
    """``devanagari``, ``latin``, ``digit``, ``punct``, ``joiner`` (ZWJ/ZWNJ) or ``other``, by code point."""
    if c in _ZERO_WIDTH_JOINERS:
        return "joiner"
    category = unicodedata.category(c)
    if category == "Nd":
        return "digit"
    if category[0] in "PS":  # before the block test: danda and double danda are Devanagari punctuation
        return "punct"
    code = ord(c)
    if 0x0900 <= code <= 0x097F or 0xA8E0 <= code <= 0xA8FF:
        return "devanagari"
    if category[0] in "LM" and unicodedata.name(c, "").startswith("LATIN"):
        return "latin"
    return "other"


def token_script(token: str) -> str:
    """The token's script (Devanagari/Latin/digit/punctuation), ``mixed`` or ``other``; joiners do not count."""
    classes = {char_class(c) for c in token} - {"joiner"}
    if len(classes) == 1:
        return classes.pop()
    return "mixed" if classes else "other"


def _shape_char(c: str) -> str:
    kind = char_class(c)
    if kind == "latin":
        return "X" if c.isupper() else "x"
    if kind == "devanagari":
        return "m" if unicodedata.category(c)[0] == "M" else "D"
    return {"digit": "d", "joiner": "j", "punct": c, "other": "o"}[kind]


def token_shape(token: str) -> str:
    """Character classes with runs collapsed: ``Sony`` -> ``Xx``, ``स्टाफ़`` -> ``DmDmDm``, ``4G`` -> ``dX``."""
    out: list[str] = []
    for c in token:
        s = _shape_char(c)
        if not out or out[-1] != s:
            out.append(s)
    return "".join(out)


def graphemes(token: str) -> list[str]:
    return _GRAPHEME.findall(token)


@functools.lru_cache(maxsize=200_000)
def _token_features(token: str) -> tuple[tuple[str, Any], ...]:
    token = normalize(token)
    clusters = graphemes(token)
    lower = token.casefold()
    # ``lower`` is always there, ``token`` only where case adds to it (never in Devanagari): the same
    # information in fewer attributes, and training time grows with attributes per token.
    features: list[tuple[str, Any]] = [("lower", lower)]
    if token != lower:
        features.append(("token", token))
    features += [("script", token_script(token)), ("shape", token_shape(token))]
    for n in (1, 2, 3):
        if len(clusters) >= n:
            features.append((f"prefix{n}", "".join(clusters[:n])))
            features.append((f"suffix{n}", "".join(clusters[-n:])))
    return tuple(features)


@functools.lru_cache(maxsize=400_000)
def _neighbour_features(token: str, offset: int) -> tuple[tuple[str, Any], ...]:
    return tuple((f"{offset:+d}:{k}", v) for k, v in _token_features(token))


_OUTSIDE = {offset: ((f"{offset:+d}:{'BOS' if offset < 0 else 'EOS'}", True),) for offset in (-2, -1, 1, 2)}


def token_features(token: str) -> dict[str, Any]:
    """The features of one token alone (NFC first, so both spellings of a nukta letter agree)."""
    return dict(_token_features(token))


def sentence_features(tokens: Sequence[str]) -> list[dict[str, Any]]:
    """Per token: its own features, its position, and the features of the tokens up to two either side."""
    n = len(tokens)
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"bias": 1.0, "position": str(min(i, 5)), "from_end": str(min(n - 1 - i, 5))}
        row.update(_token_features(tokens[i]))
        for offset in (-2, -1, 1, 2):
            j = i + offset
            row.update(_neighbour_features(tokens[j], offset) if 0 <= j < n else _OUTSIDE[offset])
        rows.append(row)
    return rows


def featurize(tokens: Sequence[str]):
    """The sentence as CRFsuite items (built once, reused by every fold that trains or predicts on it)."""
    import pycrfsuite

    return pycrfsuite.ItemSequence(sentence_features(tokens))


# ---------------------------------------------------------------- training and prediction


def _typed(tags: Iterable[str]) -> list[str]:
    return [t if t == "O" else f"{t}-{ASPECT_TYPE}" for t in tags]


def _plain(tags: Iterable[str]) -> list[str]:
    return [t.split("-", 1)[0] for t in tags]


_LABELS = (("B", f"B-{ASPECT_TYPE}"), ("I", f"I-{ASPECT_TYPE}"), ("O", "O"))


@dataclass
class TrainedModel:
    crf: Any
    settings: CrfSettings
    train_sentences: int

    def predict(self, token_lists: Sequence[Sequence[str]]) -> list[list[str]]:
        """Plain B/I/O tags per sentence."""
        return [tags for tags, _ in self.predict_items([featurize(t) for t in token_lists])]

    def marginals(self, token_lists: Sequence[Sequence[str]]) -> list[list[dict[str, float]]]:
        """Per token, the model's probability of ``B``, ``I`` and ``O``."""
        return [m for _, m in self.predict_items([featurize(t) for t in token_lists])]

    def predict_items(self, items: Sequence[Any]) -> list[tuple[list[str], list[dict[str, float]]]]:
        """Tags and marginals of featurized sentences, in one pass of the tagger per sentence."""
        out = []
        tagger = self.crf.tagger_ if items else None
        for x in items:
            tags = _plain(tagger.tag(x))
            marginals = [{plain: tagger.marginal(typed, i) for plain, typed in _LABELS if typed in self._labels}
                         for i in range(len(tags))]
            out.append((tags, [{**_ZERO, **m} for m in marginals]))
        return out

    @functools.cached_property
    def _labels(self) -> frozenset[str]:
        return frozenset(self.crf.tagger_.labels())


_ZERO = {"B": 0.0, "I": 0.0, "O": 0.0}


class _StoredCrf:
    """A CRF read back from its model file's bytes: only the tagger (what prediction needs)."""

    def __init__(self, data: bytes) -> None:
        import pycrfsuite

        self._data = data  # CRFsuite reads the model from this buffer: it must outlive the tagger
        self.tagger_ = pycrfsuite.Tagger()
        self.tagger_.open_inmemory(data)


def model_bytes(model: TrainedModel) -> bytes:
    """The trained CRF as CRFsuite model file bytes (no pickle: ``load_model`` reads them back)."""
    with open(model.crf.modelfile.name, "rb") as f:
        return f.read()


def load_model(data: bytes, settings: CrfSettings | None = None, train_sentences: int = 0) -> TrainedModel:
    """A model that predicts like the one ``model_bytes`` wrote."""
    if not data:
        raise ValueError("baseline: an empty model file")
    return TrainedModel(_StoredCrf(data), settings or CrfSettings(), train_sentences)


def train(sequences: Sequence[LabelledSequence], settings: CrfSettings | None = None,
          items: Sequence[Any] | None = None) -> TrainedModel:
    """A CRF trained on ``sequences`` (deterministic: L-BFGS has no randomness); ``items`` are their
    ``featurize``d tokens when the caller has them already."""
    import sklearn_crfsuite

    settings = settings or CrfSettings()
    if not sequences:
        raise ValueError("baseline: train needs at least one labelled sentence")
    crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=settings.c1, c2=settings.c2,
                               max_iterations=settings.max_iterations, all_possible_transitions=True)
    crf.fit(items if items is not None else [featurize(s.tokens) for s in sequences],
            [_typed(s.tags) for s in sequences])
    return TrainedModel(crf, settings, len(sequences))


@dataclass(frozen=True)
class TrainedFile:
    """A model file and what training it cost in the process that trained it (CPU seconds, its pid)."""

    data: bytes
    cpu_seconds: float
    pid: int


def train_model_file(sequences: Sequence[LabelledSequence], settings: CrfSettings | None = None) -> TrainedFile:
    """``train`` then ``model_bytes``: a picklable entry point, so a worker process can train and hand back
    plain bytes (CRFsuite keeps the GIL while it trains, so a thread would stall its whole process)."""
    import os
    import time

    started = time.process_time()
    data = model_bytes(train(sequences, settings))
    return TrainedFile(data, time.process_time() - started, os.getpid())


def span_confidence(marginals: Sequence[dict[str, float]], span: tuple[int, int]) -> float:
    """The model's probability of exactly this span's tags (``B`` then ``I``s, then not ``I``), token by token."""
    start, end = span
    p = marginals[start]["B"]
    for i in range(start + 1, end):
        p *= marginals[i]["I"]
    if end < len(marginals):
        p *= 1.0 - marginals[end]["I"]
    return p


@dataclass(frozen=True)
class SpanSuggestion:
    start: int
    end: int
    confidence: float


def suggest_spans(model: TrainedModel, token_lists: Sequence[Sequence[str]]) -> list[list[SpanSuggestion]]:
    """The spans the model predicts in each sentence, with their confidence (for suggestions in the editor)."""
    predicted = model.predict(token_lists)
    marginals = model.marginals(token_lists)
    return [
        [SpanSuggestion(s, e, span_confidence(m, (s, e))) for s, e in tags_to_spans(_valid(tags))]
        for tags, m in zip(predicted, marginals)
    ]


def _valid(tags: Sequence[str]) -> list[str]:
    """A CRF can emit an I after O; strict IOB2 scoring drops such a span, and so do suggestions."""
    out, previous = [], "O"
    for t in tags:
        t = "O" if t == "I" and previous == "O" else t
        out.append(t)
        previous = t
    return out


# ---------------------------------------------------------------- folds and cross-validation


def fold_assignment(keys: Sequence[str], folds: int = 5, seed: int = 13) -> list[int]:
    """The fold (0..folds-1) of each key: keys sorted, shuffled with ``seed``, dealt round-robin. Depends
    only on the set of keys, so the same data always splits the same way whatever the read order."""
    if folds < 2:
        raise ValueError(f"baseline: folds must be at least 2, got {folds}")
    if len(set(keys)) != len(keys):
        raise ValueError("baseline: sentence keys must be unique to split them into folds")
    order = sorted(keys)
    random.Random(seed).shuffle(order)
    fold_of = {key: rank % folds for rank, key in enumerate(order)}
    return [fold_of[k] for k in keys]


def kfold_indices(keys: Sequence[str], folds: int = 5, seed: int = 13) -> list[tuple[list[int], list[int]]]:
    """(train, test) index lists per fold; every index is in exactly one test part."""
    assignment = fold_assignment(keys, folds, seed)
    return [([i for i, f in enumerate(assignment) if f != k], [i for i, f in enumerate(assignment) if f == k])
            for k in range(folds)]


@dataclass(frozen=True)
class Prediction:
    """A model's tags for one sentence, with per-token marginals; ``fold`` is -1 for a held-out split."""

    key: str
    tags: tuple[str, ...]
    marginals: tuple[dict[str, float], ...]
    fold: int = -1


def cross_validated_predictions(sequences: Sequence[LabelledSequence],
                                settings: CrfSettings | None = None) -> list[Prediction]:
    """Each sentence predicted by the model of the fold that left it out (for scores and review suspects).
    Fewer sentences than folds: as many folds as sentences; one sentence or none: no prediction."""
    settings = settings or CrfSettings()
    if len(sequences) < 2:
        return []
    folds = min(settings.folds, len(sequences))
    items = [featurize(s.tokens) for s in sequences]
    assignment = fold_assignment([s.key for s in sequences], folds, settings.seed)
    out: dict[int, Prediction] = {}
    for fold, model in enumerate(_fold_models(sequences, items, assignment, folds, settings)):
        test_idx = [i for i, f in enumerate(assignment) if f == fold]
        for i, (tags, marginals) in zip(test_idx, model.predict_items([items[i] for i in test_idx])):
            out[i] = Prediction(sequences[i].key, tuple(tags), tuple(marginals), fold)
    return [out[i] for i in range(len(sequences))]


def _fold_models(sequences: Sequence[LabelledSequence], items: Sequence[Any], assignment: Sequence[int],
                 folds: int, settings: CrfSettings) -> list[TrainedModel]:
    """One model per fold, each trained without its fold. The sentences go into CRFsuite once, each in its
    fold's group, and every model is trained with its fold held out: the same model as ``train`` on the
    other folds (same sentences in the same order, same parameters), without loading the data k times."""
    import tempfile
    from pathlib import Path

    import pycrfsuite

    trainer = pycrfsuite.Trainer(algorithm="lbfgs", verbose=False)
    trainer.set_params({"c1": settings.c1, "c2": settings.c2, "max_iterations": settings.max_iterations,
                        "feature.possible_transitions": True})
    for x, s, group in zip(items, sequences, assignment):
        trainer.append(x, _typed(s.tags), group)
    models = []
    with tempfile.TemporaryDirectory(prefix="crf-folds-") as tmp:
        for fold in range(folds):
            path = Path(tmp) / f"fold{fold}.crfsuite"
            trainer.train(str(path), holdout=fold)
            models.append(load_model(path.read_bytes(), settings, len(assignment) - assignment.count(fold)))
    return models


def held_out_predictions(train_set: Sequence[LabelledSequence], test_set: Sequence[LabelledSequence],
                         settings: CrfSettings | None = None) -> list[Prediction]:
    """``test_set`` predicted by one model trained on ``train_set``."""
    if not train_set or not test_set:
        return []
    model = train(train_set, settings)
    predicted = model.predict_items([featurize(s.tokens) for s in test_set])
    return [Prediction(s.key, tuple(t), tuple(m)) for s, (t, m) in zip(test_set, predicted)]


@dataclass(frozen=True)
class Suspect:
    """A sentence whose gold the model contradicts: ``confidence`` is the model's probability of its own tag
    on the token where it is surest that the gold is wrong."""

    key: str
    token: int
    gold: str
    predicted: str
    confidence: float


def suspects(sequences: Sequence[LabelledSequence], predictions: Sequence[Prediction],
             min_confidence: float = 0.9) -> list[Suspect]:
    """Gold the (cross-validated) model contradicts with at least ``min_confidence``, most confident first."""
    gold = {s.key: s.tags for s in sequences}
    found = []
    for p in predictions:
        tags = gold.get(p.key)
        if tags is None:
            continue
        worst = max(((p.marginals[i][t], i) for i, t in enumerate(p.tags) if t != tags[i]), default=None)
        if worst is not None and worst[0] >= min_confidence:
            found.append(Suspect(p.key, worst[1], tags[worst[1]], p.tags[worst[1]], worst[0]))
    return sorted(found, key=lambda s: (-s.confidence, s.key))


# ---------------------------------------------------------------- scoring


def span_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict[str, float | None]:
    """seqeval strict IOB2 span precision, recall and F1 (micro) over plain B/I/O tags; None without sentences.
    One pass of the function seqeval's ``precision_score``/``recall_score``/``f1_score`` each call in strict
    mode, so the spans are extracted once, not three times."""
    from seqeval.metrics.v1 import precision_recall_fscore_support
    from seqeval.scheme import IOB2

    if len(gold) != len(predicted):
        raise ValueError(f"span_scores: {len(gold)} gold sentences but {len(predicted)} predicted")
    for i, (g, p) in enumerate(zip(gold, predicted)):
        if len(g) != len(p):
            raise ValueError(f"span_scores: sentence {i + 1} has {len(g)} gold tags but {len(p)} predicted")
    if not gold:
        return {"precision": None, "recall": None, "f1": None}
    y_true = [_typed(g) for g in gold]
    y_pred = [_typed(p) for p in predicted]
    precision, recall, f1, _ = precision_recall_fscore_support(y_true, y_pred, average="micro", beta=1,
                                                               zero_division=0, scheme=IOB2)
    return {"precision": float(precision), "recall": float(recall), "f1": float(f1)}


def scores_by_domain(gold: Sequence[LabelledSequence], predicted: dict[str, Sequence[str]],
                     train_counts: dict[str, int], also: Iterable[str] = ()) -> dict[str, dict]:
    """Per domain (those of the data and ``also``) and ``all``: P/R/F1 and sentence counts (the
    ``baseline --json`` entry shape; a domain without sentences has null figures and zero counts)."""
    out: dict[str, dict] = {}
    domains = sorted({s.domain for s in gold} | set(train_counts) | set(also))
    for domain in [*domains, "all"]:
        chosen = [s for s in gold if domain in ("all", s.domain) and s.key in predicted]
        figures = span_scores([s.tags for s in chosen], [predicted[s.key] for s in chosen])
        trained = sum(train_counts.values()) if domain == "all" else train_counts.get(domain, 0)
        out[domain] = {**figures, "train_sentences": trained, "test_sentences": len(chosen)}
    return out


# ---------------------------------------------------------------- the dataset check


#: Several domains, evaluated by different protocols (``domain_protocols`` says which).
PER_DOMAIN = "per domain"
#: Figures over fewer sentences than this carry a warning (``small_sample_warning``).
MIN_SENTENCES = 50


def domain_protocol(sequences: Sequence[LabelledSequence], domain: str) -> str:
    """Train -> test where the domain has train sentences and a test split with gold, else cross-validation
    over its train sentences. Decided per domain: an official test file imported for one domain is used for
    that domain whether or not the other has one."""
    splits = {s.split for s in sequences if s.domain == domain}
    return HELD_OUT if {"train", "test"} <= splits else CROSS_VALIDATION


def domain_protocols(sequences: Sequence[LabelledSequence]) -> dict[str, str]:
    return {d: domain_protocol(sequences, d) for d in sorted({s.domain for s in sequences})}


def protocol_for(sequences: Sequence[LabelledSequence]) -> str:
    """The side's protocol: ``HELD_OUT`` or ``CROSS_VALIDATION`` when every domain uses it, else ``PER_DOMAIN``."""
    found = set(domain_protocols(sequences).values())
    return found.pop() if len(found) == 1 else (PER_DOMAIN if found else CROSS_VALIDATION)


def protocol_label(protocol: str, settings: CrfSettings) -> str:
    """The short name the report and the signature use: ``test split`` or ``5-fold CV over train``."""
    return "test split" if protocol == HELD_OUT else f"{settings.folds}-fold CV over train"


def small_sample_warning(sentences: int) -> str | None:
    """The warning a figure over fewer than ``MIN_SENTENCES`` scored sentences carries (None from 50 on)."""
    if 0 < sentences < MIN_SENTENCES:
        return (f"only {sentences} sentence(s) scored (fewer than {MIN_SENTENCES}): one span more or less moves "
                "these figures a lot")
    return None


def side_baseline(sequences: Sequence[LabelledSequence], settings: CrfSettings | None = None,
                  domains: Iterable[str] = ()) -> tuple[dict[str, dict], str]:
    """Scores per domain and overall for one side, and the protocol used. One model per domain (the paper's
    per-domain rows); ``all`` pools every domain's predictions. Each domain is evaluated train -> test where
    it has a test split, else by cross-validation over its train sentences (``domain_protocol``); every entry
    says how (``protocol``: ``test split``, ``5-fold CV over train``, for ``all`` possibly ``per domain``) and
    carries ``warning`` where fewer than ``MIN_SENTENCES`` sentences were scored."""
    settings = settings or CrfSettings()
    protocols = domain_protocols(sequences)
    protocol = protocol_for(sequences)
    predicted: dict[str, Sequence[str]] = {}
    train_counts: dict[str, int] = {}
    scored: list[LabelledSequence] = []
    for domain in sorted({s.domain for s in sequences}):
        train_set = [s for s in sequences if s.domain == domain and s.split == "train"]
        if protocols[domain] == HELD_OUT:
            test_set = [s for s in sequences if s.domain == domain and s.split == "test"]
            predictions = held_out_predictions(train_set, test_set, settings)
            train_counts[domain] = len(train_set)
        else:
            test_set = train_set
            predictions = cross_validated_predictions(train_set, settings)
            train_counts[domain] = len(train_set) if len(train_set) >= 2 else 0
        predicted.update((p.key, p.tags) for p in predictions)
        scored += [s for s in test_set if s.key in predicted]
    scores = scores_by_domain(scored, predicted, train_counts, domains)
    for domain, figures in scores.items():
        how = protocols.get(domain)
        if domain == "all":
            how = protocol if protocols else None
        figures["protocol"] = (PER_DOMAIN if how == PER_DOMAIN else protocol_label(how, settings)) if how else None
        figures["warning"] = small_sample_warning(figures["test_sentences"])
    return scores, protocol


def dataset_baseline(sides: dict[str, Sequence[LabelledSequence]], settings: CrfSettings | None = None) -> dict:
    """The ``baseline --json`` report: ``{"en": {domain: figures, "all": ...}, "hi": {...}, "signature": ...}``.
    Under cross-validation ``train_sentences`` counts the train sentences the folds are cut from (each
    fold's model sees (k-1)/k of them) and ``test_sentences`` those scored: the same sentences."""
    settings = settings or CrfSettings()
    report: dict[str, Any] = {}
    protocols: dict[str, str] = {}
    domains = sorted({s.domain for sequences in sides.values() for s in sequences})  # every side lists every domain
    for side, sequences in sides.items():
        report[side], protocol = side_baseline(sequences, settings, domains)
        if not sequences:
            protocols[side] = "no data"
        elif protocol == PER_DOMAIN:
            protocols[side] = PER_DOMAIN + " (" + "; ".join(
                f"{d} {protocol_label(p, settings)}" for d, p in domain_protocols(sequences).items()) + ")"
        else:
            protocols[side] = protocol_label(protocol, settings)
    report["signature"] = settings.signature(protocols)
    return report


SIDE_NAMES = {"en": "English (source, SemEval offsets)", "hi": "Hindi (final translations, gold)"}


def format_baseline(report: dict) -> str:
    """The report as text: one table per side, the protocol said in words, and the signature."""
    lines = []
    protocols = report_protocols(report)
    for side, figures in report.items():
        if side == "signature":
            continue
        how = protocols.get(side, "")
        lines.append(f"{SIDE_NAMES.get(side, side)}: {how}")
        if how.endswith("CV over train"):
            lines.append("  (no test split: figures are cross-validated over train)")
        elif how.startswith(PER_DOMAIN):
            lines.append("  (each domain with a test split is scored on it; the others are cross-validated over "
                         "train; the protocol column says which)")
        if not figures or not any(f["test_sentences"] for f in figures.values()):
            lines += ["  no labelled sentences", ""]
            continue
        lines.append(f"  {'domain':<12} {'P':>6} {'R':>6} {'F1':>6} {'train':>7} {'test':>7}  protocol")
        warnings = []
        for domain, f in figures.items():
            lines.append(f"  {domain:<12} {_fmt(f['precision'])} {_fmt(f['recall'])} {_fmt(f['f1'])} "
                         f"{f['train_sentences']:>7} {f['test_sentences']:>7}  {f.get('protocol') or ''}")
            if f.get("warning"):
                warnings.append(f"  {domain}: {f['warning']}")
        lines += warnings
        lines.append("")
    lines.append(f"signature: {report.get('signature', '')}")
    return "\n".join(lines)


def report_protocols(report: dict) -> dict[str, str]:
    """Per side, how it was evaluated (``test split``, ``5-fold CV over train`` or ``no data``), from the signature."""
    return dict(part.split(":", 1) for part in _eval_part(report.get("signature", "")).split(",") if ":" in part)


def _eval_part(signature: str) -> str:
    for part in signature.split("|"):
        if part.startswith("eval="):
            return part[len("eval="):]
    return ""


def _fmt(x: float | None) -> str:
    return f"{x:>6.3f}" if x is not None else f"{'n/a':>6}"


def card_lines(report: dict) -> list[str]:
    """The dataset card's section: the CRF figures of both sides per domain, side by side, with how they
    were obtained (the seed paper's argument: a model learns from the Hindi corpus about as well as from its source)."""
    protocols = report_protocols(report)
    domains = sorted({d for side in ("en", "hi") for d in report.get(side, {}) if d != "all"}) + ["all"]

    def cells(side: str, domain: str) -> list[str]:
        f = report.get(side, {}).get(domain)
        if not f or f["f1"] is None:
            return ["n/a"] * 3
        return [f"{f[k]:.3f}" for k in ("precision", "recall", "f1")]

    def how(side: str, domain: str) -> str:
        f = report.get(side, {}).get(domain) or {}
        n = f.get("test_sentences", 0)
        return f"{f.get('protocol') or 'n/a'}, n={n}" + (" (fewer than 50: unstable)" if f.get("warning") else "")

    lines = ["## CRF baseline (seed paper Table 3, first row)", "",
             "| domain | English P | English R | English F1 | Hindi P | Hindi R | Hindi F1 | English scored on | "
             "Hindi scored on |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {d} | " + " | ".join(cells("en", d) + cells("hi", d) + [how("en", d), how("hi", d)]) + " |"
              for d in domains]
    lines += ["", "English: every imported source sentence, tags from the SemEval offsets "
              f"({protocols.get('en', 'n/a')}); Hindi: the final translations' gold tags "
              f"({protocols.get('hi', 'n/a')}). "
              "Span precision, recall and F1 with seqeval, strict IOB2.", "",
              f"Signature: `{report.get('signature', '')}`", ""]
    return lines
