"""``jsonl``: one JSON object per sentence with both sides, offsets, provenance and agreement.

Hugging Face ``datasets.load_dataset("json", data_files=...)`` infers one Arrow schema per file from the
rows, so every row has the same keys with the same types: lists are lists (empty, never null), integer
fields are never null (``source_aspect`` is -1 where the aspect map links no English aspect; an item
without agreement figures counts 0 annotators and 1 translation in its phase), and only the float
figures, ``best_in_phase``, polarities and ``guidelines_version`` are null where undefined. Hindi aspects
satisfy ``text[from:to] == term`` and ``tokens[token_from:token_to]`` are the aspect's tokens.
"""

from __future__ import annotations

import json

from corpus.export.options import FormatOptions, render_split_files
from corpus.export.records import ExportDataset, ExportSentence

AGREEMENT_KEYS = (
    "rouge_l_vs_others", "rouge_l_phase_mean", "translations_in_phase", "best_in_phase", "annotators",
    "token_agreement", "cohen_kappa",
)


NO_SOURCE_ASPECT = -1
INT_DEFAULTS = {"translations_in_phase": 1, "annotators": 0}


def _float(value) -> float | None:
    return None if value is None else float(value)


def to_json(r: ExportSentence) -> dict:
    """A record's JSON object; sequences stay tuples (``json`` writes them as arrays)."""
    get = r.agreement.get
    in_phase, annotators, best = get("translations_in_phase"), get("annotators"), get("best_in_phase")
    agreement = {  # in AGREEMENT_KEYS order
        "rouge_l_vs_others": _float(get("rouge_l_vs_others")),
        "rouge_l_phase_mean": _float(get("rouge_l_phase_mean")),
        "translations_in_phase": INT_DEFAULTS["translations_in_phase"] if in_phase is None else int(in_phase),
        "best_in_phase": None if best is None else bool(best),
        "annotators": INT_DEFAULTS["annotators"] if annotators is None else int(annotators),
        "token_agreement": _float(get("token_agreement")),
        "cohen_kappa": _float(get("cohen_kappa")),
    }
    return {
        "id": r.uid,
        "sentence_id": r.sentence_id,
        "domain": r.domain,
        "split": r.split,
        "source_split": r.source_split,
        "text": r.hi_text,
        "tokens": r.hi_tokens,
        "tags": r.hi_tags,
        "aspects": [
            {"term": a.term, "from": a.start, "to": a.end, "token_from": a.token_start, "token_to": a.token_end,
             "polarity": a.polarity,
             "source_aspect": NO_SOURCE_ASPECT if a.source_position is None else a.source_position}
            for a in r.hi_aspects
        ],
        "lid": r.lid,
        "en_text": r.en_text,
        "en_tokens": r.en_tokens,
        "en_tags": r.en_tags,
        "en_aspects": [
            {"term": a.term, "from": a.start, "to": a.end, "polarity": a.polarity, "position": int(a.position)}
            for a in r.en_aspects
        ],
        "categories": [{"category": c, "polarity": p} for c, p in r.categories],
        "phase": r.phase,
        "translator": r.translator,
        "is_final": r.is_final,
        "gold_source": r.gold_source,
        "guidelines_version": r.guidelines_version,
        "agreement": agreement,
    }


#: ``json.dumps(..., ensure_ascii=False)``'s encoder, made once rather than once a line; a record holds no
#: cycle, so the encoder keeps no list of the containers it is inside (the same text).
_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def _line(r: ExportSentence) -> str:
    return _ENCODE(to_json(r)) + "\n"


def format_jsonl(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(dataset, "jsonl", "jsonl", options, _line)
