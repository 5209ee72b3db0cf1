"""What the lead's dashboard shows, as typed data: the page (``pages/dashboard.py``) only renders it.

Every number comes from ``corpus`` (``metrics``, ``ranking``, ``progress``, ``codemix``, ``phonetic``) over
``db.metrics_data``. A new save shows on the next run: the figures are cached per generation of the counted
corpus (``CountedCorpora``), which a save of something counted moves and a draft saved does not; what counts
open work is cached per save stamp (``latest_save``) and read in a thread of its own meanwhile; the left-out
counts (the export's selection) per what they read (``db.metrics_data.left_out_basis``), which a save of a
translation that is not final leaves as it was.

The libraries a test or a newer build may replace (``corpus.metrics.compute_agreement``,
``db.metrics_data.load_progress``, ``db.export_data.left_out_reasons``) are looked up on their module at each
call, not bound once at import.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import streamlit as st
from sqlalchemy.engine import Engine

import corpus.metrics as metrics
import db.export_data as export_data
import db.metrics_data as metrics_data
from corpus.agreement import MetricsInput, filter_input
from corpus.codemix import LANG_TAGS, cmi, corpus_cmi, sentence_tags
from corpus.export.selection import LeftOutSummary, left_out_summary
from corpus.phonetic import spelling_tolerant_report
from corpus.projection import AWARE
from corpus.progress import filter_counts, person_progress, phase_progress, submitted_counts
from corpus.ranking import (
    annotator_ranking,
    domain_figures,
    figure_text,
    in_scope,
    sentence_ranking,
    table2_basis,
    table2_rows,
    translator_ranking,
)
from corpus.suggestions import SuggestionReport
from corpus.vocabulary import Status
from db.projection import suggestion_figures
from db.queries import final_translations
from ui.heap import loaded_outside_collections

LOWEST = 200  # sentence-phase units listed (all of them in the CSV)

Scope = tuple[str, ...]


class CountedCorpora:
    """Server-wide, per (database, project): the latest metrics snapshot, the save stamp it was loaded for,
    and the corpus the figures count, numbered by generation. A save that changes nothing counted (every
    autosave of a draft) changes the stamp, not the generation, so the figures cached for it stay; a load
    after a save reads only the rows that changed (``db.metrics_data.load_metrics_snapshot``)."""

    KEPT = 3  # generations kept: a run still computing an older one finds its corpus

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[tuple, tuple[tuple, metrics_data.MetricsSnapshot, int]] = {}
        self._corpus: dict[tuple, MetricsInput] = {}
        # (db, project) -> (left-out basis, its number, the sentences touched since the number before or None)
        self._left_out: dict[tuple, tuple[tuple, int, set[int] | None]] = {}
        self._reasons: dict[tuple, tuple[int, dict]] = {}  # (db, project) -> (basis number, reasons then)

    def generation(self, engine: Engine, db: str, project: int, stamp: tuple) -> tuple[int, bool]:
        """The generation of the corpus counted at ``stamp``, and whether it is new. (Everything it uses comes
        in as arguments: this object outlives the script run that made it, and that run's globals.)"""
        with self._lock:
            latest = self._latest.get((db, project))
            if latest is not None and latest[0] == stamp:
                return latest[2], False
            before = latest[1] if latest is not None else None
            with loaded_outside_collections():
                snapshot = metrics_data.load_metrics_snapshot(engine, project, before)
            basis = metrics_data.left_out_basis(engine, project, snapshot)  # read before anything is kept
            kept = self._left_out.get((db, project))
            touched = None  # the sentences a save touched since the basis kept (read before anything is kept too)
            if kept is not None and kept[0] != basis:
                touched = metrics_data.left_out_touched(engine, kept[0], basis)
            new = latest is None or snapshot.data is not before.data
            if not new:
                generation = latest[2]
            else:
                generation = latest[2] + 1 if latest is not None else 0
                self._corpus[(db, project, generation)] = snapshot.data
                for key in [k for k in self._corpus if k[:2] == (db, project) and k[2] <= generation - self.KEPT]:
                    del self._corpus[key]
            self._latest[(db, project)] = (stamp, snapshot, generation)
            if kept is None or kept[0] != basis:
                self._left_out[(db, project)] = (basis, kept[1] + 1 if kept is not None else 0, touched)
            return generation, new

    def corpus(self, db: str, project: int, generation: int) -> MetricsInput:
        return self._corpus[(db, project, generation)]

    def left_out_number(self, db: str, project: int) -> int:
        """Numbers the left-out counts' basis (``db.metrics_data.left_out_basis``) as the generation numbers the
        corpus: it moves when a save changes what the counts read, not with every save of what counts (a
        translation that is not final, its annotations)."""
        with self._lock:
            return self._left_out[(db, project)][1]

    def left_out_since(self, db: str, project: int, number: int) -> tuple[dict | None, set[int] | None]:
        """The left-out reasons of basis ``number - 1`` and the sentences a save touched since, when both are
        known (``db.export_data.left_out_reasons`` then selects only those again); else (None, None)."""
        with self._lock:
            kept, basis = self._reasons.get((db, project)), self._left_out.get((db, project))
            if kept is None or basis is None or kept[0] != number - 1 or basis[1] != number or basis[2] is None:
                return None, None
            return kept[1], basis[2]

    def keep_reasons(self, db: str, project: int, number: int, reasons: dict) -> None:
        with self._lock:
            kept = self._reasons.get((db, project))
            if kept is None or kept[0] <= number:
                self._reasons[(db, project)] = (number, reasons)


# --- Typed views ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overview:
    """The figures of the filters' whole input: Table 2 and what it is over, and the tables beside it."""

    sentences: int
    table2: list[dict]  # as shown: short names, three decimals, "—" where undefined
    table2_numbers: list[dict]  # the same rows as plain numbers (the CSV)
    basis: str
    reasons: list[str]
    explanations: list[str]
    rouge_l: dict
    signature: dict
    domains: list[dict]
    weeks: list[dict]
    annotator_pairs: list[dict]
    pair_histogram: list[dict]
    coverage: dict


@dataclass(frozen=True)
class Ranked:
    """The ranked lists of one scope (a domain and phase, or everything), worst first."""

    sentences: list[dict]
    units: int
    translators: list[dict]
    annotators: list[dict]


@dataclass(frozen=True)
class Progress:
    phases: list[dict]
    people: list[dict]


@dataclass(frozen=True)
class CodeMixing:
    """CMI over the final translation of each sentence in scope (``basis`` "final"), or every submitted one."""

    basis: str
    finals_in_project: int
    summary: dict
    rows: list[dict] = field(default_factory=list)
    sentences_in_scope: int = 0
    without_final: int = 0
    left_out: int = 0


SOURCE_LABELS = {"map": "translator's own map", AWARE: "aware sisters' maps", "glossary": "glossary",
                 "transliteration": "loanword transliteration", "crf": "model (CRF)", "llm": "local language model",
                 "all": "all sources"}


def suggestion_rows(report: SuggestionReport) -> list[dict]:
    return [{"source": SOURCE_LABELS.get(r.source, r.source), "shown": r.shown,
             "acceptance": figure_text(r.acceptance_rate), "precision": figure_text(r.precision),
             "recall": figure_text(r.recall), "suggested spans judged": r.judged, "gold spans": r.gold}
            for r in report.by_source]


# --- Caches (server-wide; an Engine argument is named with a leading underscore: not part of the key) --------


@st.cache_resource(show_spinner=False)
def corpora() -> CountedCorpora:
    return CountedCorpora()


def scoped(db: str, project: int, generation: int, domains: Scope, splits: Scope) -> MetricsInput:
    """The filters' input; an empty filter means every domain (split), not none."""
    return filter_input(corpora().corpus(db, project, generation), domains or None, splits or None)


@st.cache_resource(show_spinner=False, max_entries=6)
def agreement(db: str, project: int, generation: int, domains: Scope, splits: Scope, domain: str | None,
              phase: str | None):
    """Every figure of the filters' input, narrowed to a domain and phase (None: all). One cache entry per
    scope: callers pass all seven arguments, so the whole corpus is computed once. Kept as they are, not
    pickled on every hit."""
    data = in_scope(scoped(db, project, generation, domains, splits), domain, phase)
    return data, metrics.compute_agreement(data)


@st.cache_data(show_spinner=False, max_entries=4)
def suggestions(_engine: Engine, db: str, project: int, stamp: tuple) -> SuggestionReport:
    """Suggestion precision, recall and acceptance per source and keys per item, read once per save."""
    return suggestion_figures(_engine, project)


@st.cache_data(show_spinner=False, max_entries=8)
def overview(db: str, project: int, generation: int, domains: Scope, splits: Scope) -> Overview:
    data, figures = agreement(db, project, generation, domains, splits, None, None)
    with metrics.paused_gc():
        summary = figures.report_summary()
        coverage = figures.coverage
        pk_of = {(s.domain, s.split, s.sentence_id): s.pk for s in data.sentences}
        rouge = figures.rouge
        return Overview(
            sentences=len(data.sentences),
            table2=table2_rows(figures),
            table2_numbers=metrics.summary_rows(summary),
            basis=table2_basis(data, figures),
            reasons=metrics.undefined_reasons(summary),
            explanations=metrics.explanations(),
            rouge_l=figures.rouge_l,
            signature=figures.signature,
            domains=domain_figures(data, figures),
            weeks=metrics.agreement_by_week(figures),
            annotator_pairs=metrics.annotator_pair_rows(figures),
            pair_histogram=metrics.histogram(rouge.pair_f, [rouge.unit_phase[u] for u in rouge.pair_unit.tolist()]),
            coverage={**coverage, "sentences": [
                {"id": pk_of[(r["domain"], r["split"], r["sentence_id"])], **r} for r in coverage["sentences"]]},
        )


@st.cache_data(show_spinner=False, max_entries=8)
def ranked(db: str, project: int, generation: int, domains: Scope, splits: Scope, domain: str | None,
           phase: str | None) -> Ranked:
    data, figures = agreement(db, project, generation, domains, splits, domain, phase)
    with metrics.paused_gc():  # thousands of rows and no cycles: no full collection over the corpus meanwhile
        units = metrics.sentence_agreement(data, figures)
        return Ranked(sentence_ranking(data, figures, LOWEST, rows=units), len(units), translator_ranking(figures),
                      annotator_ranking(figures))


def all_sentences(db: str, project: int, generation: int, domains: Scope, splits: Scope, domain: str | None,
                  phase: str | None) -> list[dict]:
    data, figures = agreement(db, project, generation, domains, splits, domain, phase)
    return sentence_ranking(data, figures)


@st.cache_resource(show_spinner=False)
def _reads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="dashboard-read")


@st.cache_resource(show_spinner=False, max_entries=2)
def open_work(_engine: Engine, db: str, project: int, stamp: tuple) -> Future:
    """The open work (``load_progress``), read in a thread of its own as soon as the save stamp is known:
    the read is SQL that SQLite and PostgreSQL run while this run computes the figures (their drivers let
    go of the interpreter meanwhile)."""
    return _reads().submit(metrics_data.load_progress, _engine, project, False)


@st.cache_data(show_spinner=False, max_entries=4)
def progress(_engine: Engine, db: str, project: int, stamp: tuple, generation: int, domains: Scope,
             splits: Scope) -> Progress:
    data = scoped(db, project, generation, domains, splits)
    read = open_work(_engine, db, project, stamp)
    if read.exception() is not None:
        open_work.clear()  # a failed read (a busy database) is tried again on the next run, not kept
    counts = filter_counts(read.result(), domains or None, splits or None) + submitted_counts(data)
    per_item = metrics_data.project_settings(_engine, project)["annotators_per_item"]
    return Progress(phase_progress(counts, per_item), person_progress(counts))


@st.cache_data(show_spinner=False, max_entries=4)
def left_out(_engine: Engine, db: str, project: int, basis: int, decisions: tuple) -> LeftOutSummary:
    """Keyed by what the counts read (``CountedCorpora.left_out_number``) and the decisions beside it, not by
    every save (a draft, or a translation that is not final, moves neither). After a save that moved the basis
    by one, only the sentences it touched are selected again (``db.metrics_data.left_out_touched``)."""
    previous, touched = corpora().left_out_since(db, project, basis)
    reasons = export_data.left_out_reasons(_engine, project, previous, touched)
    corpora().keep_reasons(db, project, basis, reasons)
    return left_out_summary(export_data.reason_counts(reasons))


@st.cache_data(show_spinner=False, max_entries=4)
def code_mixing(_engine: Engine, db: str, project: int, stamp: tuple, generation: int, domains: Scope,
                splits: Scope, entities: tuple[str, ...]) -> CodeMixing:
    """CMI over the final translation of each sentence in scope; every submitted translation when none is chosen."""
    data = scoped(db, project, generation, domains, splits)
    in_scope_ = {s.pk: s for s in data.sentences}
    every_final = final_translations(_engine, project)
    finals = {pk: f for pk, f in every_final.items() if pk in in_scope_}
    if finals:
        chosen = [(in_scope_[f.sentence_pk], f.phase, f.translator, f.text) for f in finals.values()
                  if f.translation_pk is not None and f.text is not None]
    else:
        chosen = [(in_scope_[t.sentence_pk], t.phase, t.translator, t.text) for t in data.translations
                  if t.translated and t.sentence_pk in in_scope_]
    chosen.sort(key=lambda r: (r[0].domain, r[0].split, r[0].ordinal, r[0].sentence_id, r[1], r[2]))
    tags = [sentence_tags(text, s.text, entities) for s, *_, text in chosen]
    rows = [
        {"domain": s.domain, "split": s.split, "sentence_id": s.sentence_id, "phase": phase, "translator": who,
         "cmi": cmi(tg), "tokens": len(tg), **{t: tg.count(t) for t in LANG_TAGS}, "text": text}
        for (s, phase, who, text), tg in zip(chosen, tags)
    ]
    return CodeMixing(
        basis="final" if finals else Status.SUBMITTED,
        finals_in_project=len(every_final),
        summary=corpus_cmi(tags).to_dict(),
        rows=rows,
        sentences_in_scope=len(in_scope_),
        without_final=len(in_scope_) - len(finals),
        left_out=sum(1 for f in finals.values() if f.translation_pk is None),
    )


@st.cache_data(show_spinner=False, max_entries=4)
def spelling(db: str, project: int, generation: int, domains: Scope, splits: Scope) -> dict:
    _, figures = agreement(db, project, generation, domains, splits, None, None)
    return spelling_tolerant_report(figures.rouge, limit=50)


# --- One run's view -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dashboard:
    """The dashboard of one run: which database, project and filters, and the corpus generation and save stamp
    it reads at; each method returns one part of what the page shows."""

    engine: Engine
    db: str
    project: int
    domains: Scope
    splits: Scope
    stamp: tuple
    generation: int
    left_out_basis: int = 0

    @classmethod
    def open(cls, engine: Engine, project: int, stamp: tuple, domains: Scope, splits: Scope) -> Dashboard:
        """At the save stamp ``stamp`` (``db.metrics_data.latest_save``): starts the open work's read, and moves to
        a new corpus generation if a save changed what counts (then the figures of older corpora are dropped:
        one corpus's figures in the process)."""
        db = engine.url.render_as_string(hide_password=True)
        open_work(engine, db, project, stamp)  # read meanwhile
        generation, new_corpus = corpora().generation(engine, db, project, stamp)
        if new_corpus:
            agreement.clear()
        return cls(engine, db, project, domains, splits, stamp, generation, corpora().left_out_number(db, project))

    @property
    def _key(self) -> tuple:
        return self.db, self.project, self.generation, self.domains, self.splits

    def overview(self) -> Overview:
        return overview(*self._key)

    def ranked(self, domain: str | None, phase: str | None) -> Ranked:
        return ranked(*self._key, domain, phase)

    def all_sentences(self, domain: str | None, phase: str | None) -> list[dict]:
        return all_sentences(*self._key, domain, phase)

    def progress(self) -> Progress:
        return progress(self.engine, self.db, self.project, self.stamp, self.generation, self.domains, self.splits)

    def left_out(self) -> LeftOutSummary:
        return left_out(self.engine, self.db, self.project, self.left_out_basis,
                        export_data.left_out_stamp(self.engine, self.project))

    def suggestions(self) -> SuggestionReport:
        return suggestions(self.engine, self.db, self.project, self.stamp)

    def code_mixing(self, entities: tuple[str, ...]) -> CodeMixing:
        return code_mixing(self.engine, self.db, self.project, self.stamp, self.generation, self.domains,
                           self.splits, entities)

    def spelling(self) -> dict:
        return spelling(*self._key)
