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
    """``to_json(r)`` as ``_ENCODE`` writes it, one line. Written from the record's fields by ``_fast_line``;
    a value of a type it does not write as the encoder does (see there) goes through ``_ENCODE``."""
    try:
        return _fast_line(r)
    except _NotPlain:
        return _ENCODE(to_json(r)) + "\n"


class _NotPlain(Exception):
    """A record value ``_fast_line`` leaves to the encoder."""


#: What the encoder writes of a string (``ensure_ascii=False``: the C function it calls itself).
_STR = json.encoder.encode_basestring
_INT = int.__repr__
_FLOAT = float.__repr__


def _s(value) -> str:
    if isinstance(value, str):
        return _STR(value)
    raise _NotPlain


def _s_or_null(value) -> str:
    return "null" if value is None else _s(value)


def _strings(values) -> str:
    """A sequence of strings as the encoder writes a list of them. When no character of them needs escaping
    (the encoder gives their concatenation back as it is, in quotes), each is written as it is, joined in C:
    a record's tokens, tags and language ids are ~150 strings."""
    if not isinstance(values, tuple | list):  # the encoder writes these two as arrays
        raise _NotPlain
    try:
        joined = "".join(values)
        if _STR(joined) == f'"{joined}"':
            return '["' + '", "'.join(values) + '"]' if values else "[]"
        return "[" + ", ".join(map(_STR, values)) + "]"
    except TypeError:  # a value that is no string
        raise _NotPlain from None


def _i(value) -> str:
    """An ``int`` field (``int(value)`` where ``to_json`` converts it: ``cast``)."""
    if value.__class__ is int:
        return _INT(value)
    raise _NotPlain


def _f(value) -> str:
    """``_float(value)`` as the encoder writes a float (``NaN`` and the infinities as it spells them)."""
    if value is None:
        return "null"
    number = float(value)
    if number != number:
        return "NaN"
    if number in (_INF, -_INF):
        return "Infinity" if number > 0 else "-Infinity"
    return _FLOAT(number)


_INF = float("inf")


def _b(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise _NotPlain


def _agreement(get) -> str:
    in_phase, annotators, best = get("translations_in_phase"), get("annotators"), get("best_in_phase")
    return (
        '{"rouge_l_vs_others": ' + _f(get("rouge_l_vs_others"))
        + ', "rouge_l_phase_mean": ' + _f(get("rouge_l_phase_mean"))
        + ', "translations_in_phase": ' + _INT(INT_DEFAULTS["translations_in_phase"] if in_phase is None else int(in_phase))
        + ', "best_in_phase": ' + ("null" if best is None else _b(bool(best)))
        + ', "annotators": ' + _INT(INT_DEFAULTS["annotators"] if annotators is None else int(annotators))
        + ', "token_agreement": ' + _f(get("token_agreement"))
        + ', "cohen_kappa": ' + _f(get("cohen_kappa")) + "}"
    )


def _fast_line(r: ExportSentence) -> str:
    """``to_json(r)``'s text without the dict: the same keys in the same order, the encoder's separators
    (``", "``, ``": "``) and its spelling of each value; strings through the encoder's own function. Raises
    ``_NotPlain`` where a value is not of the type the field holds (``_line`` then encodes ``to_json``)."""
    hi_aspects = ", ".join([
        '{"term": ' + _s(a.term) + ', "from": ' + _i(a.start) + ', "to": ' + _i(a.end)
        + ', "token_from": ' + _i(a.token_start) + ', "token_to": ' + _i(a.token_end)
        + ', "polarity": ' + _s_or_null(a.polarity) + ', "source_aspect": '
        + _i(NO_SOURCE_ASPECT if a.source_position is None else a.source_position) + "}"
        for a in r.hi_aspects
    ])
    en_aspects = ", ".join([
        '{"term": ' + _s(a.term) + ', "from": ' + _i(a.start) + ', "to": ' + _i(a.end)
        + ', "polarity": ' + _s_or_null(a.polarity) + ', "position": ' + _i(int(a.position)) + "}"
        for a in r.en_aspects
    ])
    categories = ", ".join(['{"category": ' + _s(c) + ', "polarity": ' + _s_or_null(p) + "}" for c, p in r.categories])
    return "".join((
        '{"id": ', _s(r.uid), ', "sentence_id": ', _s(r.sentence_id), ', "domain": ', _s(r.domain),
        ', "split": ', _s(r.split), ', "source_split": ', _s(r.source_split), ', "text": ', _s(r.hi_text),
        ', "tokens": ', _strings(r.hi_tokens), ', "tags": ', _strings(r.hi_tags),
        ', "aspects": [', hi_aspects, '], "lid": ', _strings(r.lid),
        ', "en_text": ', _s(r.en_text), ', "en_tokens": ', _strings(r.en_tokens), ', "en_tags": ', _strings(r.en_tags),
        ', "en_aspects": [', en_aspects, '], "categories": [', categories,
        '], "phase": ', _s(r.phase), ', "translator": ', _s(r.translator), ', "is_final": ', _b(r.is_final),
        ', "gold_source": ', _s(r.gold_source), ', "guidelines_version": ', _s_or_null(r.guidelines_version),
        ', "agreement": ', _agreement(r.agreement.get), "}\n",
    ))


def format_jsonl(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(dataset, "jsonl", "jsonl", options, _line)
