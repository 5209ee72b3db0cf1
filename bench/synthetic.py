"""The one synthetic project every benchmark measures, shaped like the seed paper's corpus.

``generate(n)`` makes plain rows: ``n`` English sentences in the SemEval-2014 layout (restaurant and
laptop, train and test; 5,989 at the paper's scale) with about one aspect term each, every sentence
translated by 4 translators per phase (8 in all), every translation tagged by 2 of 4 annotators, with
the assignments the app would hold. The Hindi varies the way people do (words dropped, swapped or added;
in a sentence in three, blind translators mostly leave one aspect out; now and then an untranslatable
sentence), and annotators disagree now and then: a lead accepted the right tags for each such item.
Aware translations carry their aspect maps, and most sentences have a final translation.
``write_corpus`` bulk-inserts the rows into a migrated database's first project; ``build_corpus`` does both.

Rows refer to each other by local ids (``id`` and the models' foreign-key columns); ``write_corpus``
maps them to the ids the database gives, so the project can join a database that already holds others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta

from sqlalchemy import Engine, func, insert, select
from sqlalchemy.orm import Session

import db.models
from corpus.bio import char_span_to_token_span, spans_to_tags
from corpus.final_choice import DEFAULT_POLICY
from corpus.tokens import TOKENIZER_SIGNATURE, tokenize_with_offsets
from corpus.vocabulary import GoldSource, Phase, Role, Status
from db.schema import default_project_id

PAPER_SENTENCES = 5989
#: (domain, split, sentences at the paper's scale): the four official SemEval-2014 files.
LAYOUT = (("restaurant", "train", 2400), ("restaurant", "test", 600), ("laptop", "train", 2389), ("laptop", "test", 600))
PHASES = (Phase.AWARE, Phase.BLIND)
TRANSLATORS_PER_PHASE = 4
TRANSLATORS = tuple(f"tr{i}" for i in range(len(PHASES) * TRANSLATORS_PER_PHASE))
ANNOTATORS = tuple(f"an{i}" for i in range(4))
ANNOTATORS_PER_ITEM = 2

EN_ASPECTS = ["staff", "food", "service", "pizza", "keyboard", "battery life", "screen", "hard drive", "miso soup", "price"]
# The same aspects in Hindi; one carries a zero-width joiner, as typed text sometimes does.
HI_ASPECTS = ["स्टाफ़", "खाना", "सर्विस", "पिज़्ज़ा", "कीबोर्ड", "बैटरी लाइफ़", "स्\u200dक्रीन", "हार्ड ड्राइव", "मिसो सूप", "कीमत"]
EN_WORDS = ["very", "good", "bad", "was", "is", "and", "but", "our", "with", "quite", "cheap", "pricey", "of", "in"]
HI_WORDS = ["बहुत", "अच्छा", "बुरा", "था", "है", "और", "लेकिन", "हमारे", "साथ", "काफ़ी", "सस्ता", "महँगा", "का", "की", "में"]
PLACES = ["Brooklyn", "Sony", "Manhattan", "Dell"]  # names kept as written in both languages
VOCABULARY_SIZE = 6000
START = datetime(2026, 1, 5, 9, 0)

_CONSONANTS = "कखगघचछजझटठडढतथदधनपफबभमयरलवशसह"
_MATRAS = ["", "ा", "ि", "ी", "ु", "ू", "े", "ै", "ो", "ौ", "ं"]


@dataclass
class SyntheticCorpus:
    """Plain rows per table, ready for bulk insert (local ids; ``sentences`` get the project at write time)."""

    users: list[dict] = field(default_factory=list)
    user_roles: list[dict] = field(default_factory=list)
    sentences: list[dict] = field(default_factory=list)
    aspects: list[dict] = field(default_factory=list)
    translations: list[dict] = field(default_factory=list)
    translation_assignments: list[dict] = field(default_factory=list)
    alignments: list[dict] = field(default_factory=list)
    items: list[dict] = field(default_factory=list)
    annotation_assignments: list[dict] = field(default_factory=list)
    annotations: list[dict] = field(default_factory=list)
    adjudications: list[dict] = field(default_factory=list)
    final_choices: list[dict] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"sentences": len(self.sentences), "aspects": len(self.aspects), "translations": len(self.translations),
                "items": len(self.items), "annotations": len(self.annotations),
                "adjudications": len(self.adjudications), "final_choices": len(self.final_choices)}


# ------------------------------------------------------------------ pieces


def split_sizes(n_sentences: int) -> list[int]:
    """Sentences per file of ``LAYOUT``, in the paper's proportions, summing to ``n_sentences``."""
    sizes = [round(n_sentences * n / PAPER_SENTENCES) for _, _, n in LAYOUT[:-1]]
    return [*sizes, max(0, n_sentences - sum(sizes))]


def hindi_vocabulary(rng: random.Random, size: int = VOCABULARY_SIZE) -> list[str]:
    """Real function words first (the most frequent), then made-up Devanagari words."""
    words = list(HI_WORDS)
    seen = set(words) | {w for term in HI_ASPECTS for w in term.split()}
    while len(words) < size:
        word = "".join(rng.choice(_CONSONANTS) + rng.choice(_MATRAS) for _ in range(rng.choice((1, 2, 2, 3, 3, 4))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def english_sentence(rng: random.Random, chosen: list[int]) -> tuple[str, list[tuple[str, int, int, str]]]:
    """A sentence naming the aspects ``chosen`` (indices into ``EN_ASPECTS``), with their character spans."""
    parts = [rng.choice(EN_WORDS) for _ in range(rng.randint(6, 22))]
    parts.insert(rng.randint(0, len(parts)), rng.choice(PLACES))
    for j in range(len(chosen)):
        parts.insert(rng.randint(0, len(parts)), j)
    text, aspects = "", []
    for part in parts:
        text += " " if text else ""
        if isinstance(part, int):
            term = EN_ASPECTS[chosen[part]]
            aspects.append((term, len(text), len(text) + len(term), rng.choice(["positive", "negative", "neutral"])))
            text += term
        else:
            text += part
    text = text[0].upper() + text[1:] + "."
    if aspects and aspects[0][1] == 0:
        aspects[0] = (text[: len(aspects[0][0])], *aspects[0][1:])
    aspects.sort(key=lambda a: a[1])
    return text, aspects


def hindi_template(rng: random.Random, vocab: list[str], weights: list[float], n_aspects: int) -> list[str | int]:
    """The meaning every translator renders: words, a name, and aspect ``j`` as the int ``j``."""
    parts: list[str | int] = list(rng.choices(vocab, weights=weights, k=rng.randint(6, 22)))
    parts.insert(rng.randint(0, len(parts)), rng.choice(PLACES))
    for j in range(n_aspects):
        parts.insert(rng.randint(0, len(parts)), j)
    return parts


def render(
    rng: random.Random, template: list[str | int], terms: list[str], vocab: list[str], leave_out: int | None,
) -> tuple[str, dict[int, tuple[int, int]]]:
    """One translator's Hindi: each word kept, dropped (6%), swapped (16%) or followed by another (4%);
    every aspect kept where the template has it except ``leave_out``. Returns the text and aspect spans."""
    out: list[str | int] = []
    for part in template:
        if isinstance(part, int):
            if part != leave_out:
                out.append(part)
            continue
        r = rng.random()
        if r < 0.06:
            continue
        out.append(rng.choice(vocab) if r < 0.22 else part)
        if rng.random() < 0.04:
            out.append(rng.choice(vocab))
    text, spans = "", {}
    for part in out:
        text += " " if text else ""
        word = terms[part] if isinstance(part, int) else part
        if isinstance(part, int):
            spans[part] = (len(text), len(text) + len(word))
        text += word
    return text + ("।" if rng.random() < 0.8 else ""), spans


def noisy_spans(rng: random.Random, n_tokens: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """An annotator's reading of the true spans: one missed (3%) or one extra word marked (2%)."""
    spans = list(spans)
    r = rng.random()
    if spans and r < 0.03:
        spans.pop(rng.randrange(len(spans)))
    elif r < 0.05 and n_tokens > 1:
        start = rng.randrange(n_tokens)
        if all(start + 1 <= s or start >= e for s, e in spans):
            spans.append((start, start + 1))
    return sorted(spans)


# ------------------------------------------------------------------ the corpus


def generate(n_sentences: int = PAPER_SENTENCES, seed: int = 7) -> SyntheticCorpus:
    """The synthetic project as plain rows; the same ``seed`` gives the same rows."""
    rng = random.Random(seed)
    vocab = hindi_vocabulary(rng)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    c = SyntheticCorpus()
    for uid, name in enumerate((*TRANSLATORS, *ANNOTATORS), start=1):
        c.users.append({"id": uid, "username": name, "display_name": name})
        c.user_roles.append({"user_id": uid, "role": Role.TRANSLATOR if name in TRANSLATORS else Role.ANNOTATOR})
    annotator_ids = [len(TRANSLATORS) + 1 + k for k in range(len(ANNOTATORS))]
    s_pk = 0
    for (domain, split, _), size in zip(LAYOUT, split_sizes(n_sentences)):
        for ordinal in range(size):
            s_pk += 1
            _sentence(c, rng, vocab, weights, annotator_ids, s_pk, domain, split, ordinal)
    return c


def _sentence(
    c: SyntheticCorpus, rng: random.Random, vocab: list[str], weights: list[float], annotator_ids: list[int],
    s_pk: int, domain: str, split: str, ordinal: int,
) -> None:
    """One sentence, its aspects, 8 translations, their items, annotations, gold and the final choice."""
    chosen = rng.sample(range(len(EN_ASPECTS)), rng.choices([0, 1, 2, 3], weights=[34, 40, 20, 6])[0])
    english, aspects = english_sentence(rng, chosen)
    c.sentences.append({"id": s_pk, "domain": domain, "split": split, "sentence_id": str(s_pk), "text": english,
                        "ordinal": ordinal, "flags": []})
    aspect_ids = []
    for position, (term, start, end, polarity) in enumerate(aspects):
        aspect_ids.append(len(c.aspects) + 1)
        c.aspects.append({"id": aspect_ids[-1], "sentence_id": s_pk, "position": position, "term": term,
                          "start": start, "end": end, "polarity": polarity, "flags": []})
    # The template's aspect j is the sentence's aspect j (in source order).
    terms = [HI_ASPECTS[EN_ASPECTS.index(term.lower())] for term, *_ in aspects]
    template = hindi_template(rng, vocab, weights, len(aspects))
    fate = rng.random()  # < 0.01: nobody can translate it; >= 0.99: no final translation chosen yet
    # An aspect that is hard to render without being told it matters: blind translators mostly leave it out.
    hard = rng.randrange(len(aspects)) if aspects and rng.random() < 0.3 else None
    for phase_no, phase in enumerate(PHASES):
        for k in range(TRANSLATORS_PER_PHASE):
            translator = phase_no * TRANSLATORS_PER_PHASE + k + 1
            t_pk = len(c.translations) + 1
            when = START + timedelta(hours=rng.randrange(24 * 7 * 8))
            untranslatable = fate < 0.01
            leave_out = hard if phase == Phase.BLIND and rng.random() < 0.9 else None
            text, spans = (None, {}) if untranslatable else render(rng, template, terms, vocab, leave_out)
            c.translations.append({
                "id": t_pk, "sentence_id": s_pk, "phase": phase, "translator_id": translator, "text": text,
                "untranslatable": untranslatable, "untranslatable_reason": "idiom" if untranslatable else None,
                "status": Status.SUBMITTED, "time_spent_s": 30.0, "guidelines_version": "1.0", "version": 1,
                "created_at": when, "updated_at": when, "submitted_at": when,
            })
            c.translation_assignments.append({"user_id": translator, "sentence_id": s_pk, "phase": phase,
                                              "status": Status.SUBMITTED})
            if phase == Phase.AWARE and k == 0 and not untranslatable and fate < 0.99:
                c.final_choices.append({"sentence_id": s_pk, "translation_id": t_pk, "auto_translation_id": t_pk,
                                        "overridden": False, "policy": DEFAULT_POLICY})
            if untranslatable:
                continue
            tokens = tokenize_with_offsets(text)
            if phase == Phase.AWARE:
                c.alignments += [
                    {"translation_id": t_pk, "aspect_term_id": aspect_ids[j], "start": spans[j][0], "end": spans[j][1],
                     "dropped": False, "drop_reason": None} if j in spans else
                    {"translation_id": t_pk, "aspect_term_id": aspect_ids[j], "start": None, "end": None,
                     "dropped": True, "drop_reason": "not rendered"}
                    for j in range(len(aspects))
                ]
            true_spans = sorted({span for s, e in spans.values() if (span := char_span_to_token_span(tokens, s, e))})
            _tag(c, rng, annotator_ids, t_pk, when, [t.text for t in tokens], true_spans, phase_no + k + s_pk)


def _tag(
    c: SyntheticCorpus, rng: random.Random, annotator_ids: list[int], t_pk: int, translated: datetime,
    tokens: list[str], true_spans: list[tuple[int, int]], rotation: int,
) -> None:
    """The frozen item of one translation, tagged by two annotators; a lead settles a disagreement."""
    item_pk = len(c.items) + 1
    c.items.append({"id": item_pk, "translation_id": t_pk, "tokens": tokens, "tokenizer": TOKENIZER_SIGNATURE,
                    "translation_version": 1, "created_at": translated})
    versions = []
    for k in range(ANNOTATORS_PER_ITEM):
        annotator = annotator_ids[(rotation + k) % len(annotator_ids)]
        when = translated + timedelta(hours=1 + rng.randrange(72))
        tags = spans_to_tags(len(tokens), noisy_spans(rng, len(tokens), true_spans))
        versions.append(tags)
        c.annotations.append({"item_id": item_pk, "annotator_id": annotator, "tags": tags,
                              "no_aspects": all(t == "O" for t in tags), "status": Status.SUBMITTED,
                              "time_spent_s": 20.0, "version": 1, "created_at": when, "updated_at": when,
                              "submitted_at": when})
        c.annotation_assignments.append({"user_id": annotator, "translation_id": t_pk, "status": Status.SUBMITTED})
    if any(v != versions[0] for v in versions):
        c.adjudications.append({"item_id": item_pk, "tags": spans_to_tags(len(tokens), true_spans),
                                "source": GoldSource.ACCEPTED})


# ------------------------------------------------------------------ into a database

#: Table, model name, and the foreign keys whose local ids are mapped (column -> table it refers to).
_TABLES = (
    ("users", "User", {}),
    ("user_roles", "UserRole", {"user_id": "users"}),
    ("sentences", "SourceSentence", {}),
    ("aspects", "AspectTerm", {"sentence_id": "sentences"}),
    ("translations", "Translation", {"sentence_id": "sentences", "translator_id": "users"}),
    ("translation_assignments", "TranslationAssignment", {"user_id": "users", "sentence_id": "sentences"}),
    ("alignments", "AspectAlignment", {"translation_id": "translations", "aspect_term_id": "aspects"}),
    ("items", "TaggingItem", {"translation_id": "translations"}),
    ("annotation_assignments", "AnnotationAssignment", {"user_id": "users", "translation_id": "translations"}),
    ("annotations", "Annotation", {"item_id": "items", "annotator_id": "users"}),
    ("adjudications", "Adjudication", {"item_id": "items"}),
    ("final_choices", "FinalChoice",
     {"sentence_id": "sentences", "translation_id": "translations", "auto_translation_id": "translations"}),
)
_REFERENCED = {table for _, _, refs in _TABLES for table in refs.values()}
assert {name for name, _, _ in _TABLES} == {f.name for f in fields(SyntheticCorpus)}


def write_corpus(engine: Engine, corpus: SyntheticCorpus) -> dict[str, int]:
    """Bulk inserts into the first project of a migrated database, in one transaction; returns the counts.

    Usernames must be free, and nobody else may insert meanwhile: rows that others refer to get the
    database's next ids in insertion order, read back to map the local ids (sequences stay right on
    PostgreSQL; RETURNING in parameter order would insert row by row on SQLite)."""
    ids: dict[str, dict[int, int]] = {}
    with Session(engine) as session, session.begin():
        project_id = default_project_id(session)
        conn = session.connection()
        for name, model_name, refs in _TABLES:
            table = getattr(db.models, model_name).__table__
            rows = [{**row, **{col: ids[to][row[col]] for col, to in refs.items() if row.get(col) is not None}}
                    for row in getattr(corpus, name)]
            if not rows:
                continue
            if name == "sentences":
                rows = [{**row, "project_id": project_id} for row in rows]
            if name in _REFERENCED:
                local = [row.pop("id") for row in rows]
                before = conn.scalar(select(func.coalesce(func.max(table.c.id), 0)))
                conn.execute(insert(table), rows)
                stored = conn.scalars(select(table.c.id).where(table.c.id > before).order_by(table.c.id)).all()
                if len(stored) != len(local):
                    raise RuntimeError(f"{table.name}: someone else inserted rows while the synthetic project was written")
                ids[name] = dict(zip(local, stored))
            else:
                conn.execute(insert(table), rows)
    return corpus.counts()


def build_corpus(engine: Engine, n_sentences: int = PAPER_SENTENCES, seed: int = 7) -> dict[str, int]:
    """``generate`` then ``write_corpus``: the synthetic project in ``engine``'s first project."""
    return write_corpus(engine, generate(n_sentences, seed))
