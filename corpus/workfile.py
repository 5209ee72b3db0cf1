"""The work file (JSONL): parse with located errors, and dump deterministically.

Contract: docs/workfile.md. Dump → import into an empty database → dump gives identical
bytes, so the dump is sorted and every field it writes is read back. Importers ignore unknown fields.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import lru_cache
from json.scanner import make_scanner
from typing import Any

from corpus import json_input
from corpus.aspect_map import map_refusals
from corpus.bio import validate_tags
from corpus.errors import LocatedError
from corpus.records import (
    PHASES,
    POLARITIES,
    SPLITS,
    UNTRANSLATABLE_REASONS,
    AnnotationRecord,
    AspectLink,
    AspectRecord,
    CategoryRecord,
    SentenceKey,
    SentenceRecord,
    TranslationRecord,
    WorkFile,
)
from corpus.text_controls import breaks_as_spaces, line_break_in
from corpus.tokens import normalize
from corpus.vocabulary import Status


#: Longest translation, note or reason anyone may store: a review sentence is far shorter, so anything
#: longer is a paste gone wrong. The same limit holds for forms and work files.
MAX_TEXT_CHARS = 10_000
#: Longest value the database stores for these fields (``db.models`` column lengths).
MAX_LENGTHS = {"id": 100, "sentence_id": 100, "domain": 40, "translator": 80, "annotator": 80, "category": 100,
               "guidelines_version": 40}
#: Free-text fields of a work file (unbounded columns) and their limit.
FREE_TEXT_LIMITS = {"text": MAX_TEXT_CHARS}
# C0 controls except tab, newline and carriage return; DEL and C1 controls; unpaired surrogates
# (PostgreSQL refuses NUL, and no UTF-8 file can hold a surrogate, so neither could be stored or dumped).
_FORBIDDEN_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def check_string(value: str, field: str) -> str | None:
    """What is wrong with a text field's value, or None: control characters, surrogates, excess length."""
    # Every forbidden character is unprintable (Unicode category Cc or Cs): most values skip the search.
    bad = None if value.isprintable() else _FORBIDDEN_CHARS.search(value)
    if bad:
        char = bad.group()
        kind = "an unpaired surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
        return f"field {field!r} contains {kind} (U+{ord(char):04X} at position {bad.start()})"
    limit = MAX_LENGTHS.get(field) or FREE_TEXT_LIMITS.get(field)
    if limit is not None and len(value) > limit:
        return f"field {field!r} is {len(value):,} characters long (at most {limit})"
    return None


#: A domain or split becomes a folder or file name of every export (``conll/{domain}/{split}.conll``), so
#: it is a plain name: ASCII letters and digits, with ``-`` or ``_`` inside; no ``/``, ``\\``, ``.``, ``..``.
NAME_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38}[A-Za-z0-9])?")


def check_name(value: str, field: str) -> str | None:
    """What is wrong with a domain or split name, or None (``NAME_PATTERN``: it names export files)."""
    if NAME_PATTERN.fullmatch(value):
        return None
    return (f"{field} {value!r} cannot name a file: use 1-40 ASCII letters or digits, with - or _ inside "
            "(no /, \\, '.', '..', spaces or other characters)")


def free_reason_text(reason: str, reason_text: str | None) -> str:
    """The note kept for an untranslatable reason outside the project's categories: the reason verbatim
    (stored as ``other``), followed by the file's own ``reason_text`` when it has one."""
    return reason if not reason_text else f"{reason}: {reason_text}"


def free_reason_notes(data: bytes | str, filename: str) -> list[LocatedError]:
    """One located note per translation whose ``reason`` is not one of the project's categories, which the
    import keeps as ``other`` with the text verbatim: for the import summary. Only lines naming a
    reason are decoded, found by a substring search of the file (no copy of its lines)."""
    bytes_ = isinstance(data, bytes)
    needle, newline = (b'"reason"', b"\n") if bytes_ else ('"reason"', "\n")
    notes = []
    number, counted_to = 1, 0  # line number of the line starting at counted_to
    found = data.find(needle)
    while found >= 0:
        start = data.rfind(newline, 0, found) + 1
        end = data.find(newline, found)
        end = len(data) if end < 0 else end
        number += data.count(newline, counted_to, start)
        counted_to = start
        try:
            obj = json_input.loads(data[start:end])
        except ValueError:
            obj = None
        reason = obj.get("reason") if isinstance(obj, dict) and obj.get("type") == "translation" else None
        if isinstance(reason, str) and reason not in UNTRANSLATABLE_REASONS:
            notes.append(LocatedError(
                filename, f"untranslatable reason {reason!r} is not one of {', '.join(UNTRANSLATABLE_REASONS)}: "
                "kept as 'other' with its text verbatim", line=number, sentence_id=str(obj.get("sentence_id"))))
        found = data.find(needle, end)
    return notes


class _LineError(Exception):
    def __init__(self, message: str, sentence_id: str | None = None):
        super().__init__(message)
        self.message = message
        self.sentence_id = sentence_id


def _require(obj: dict, field: str, kind: type | tuple[type, ...], sid: str | None = None) -> Any:
    if field not in obj:
        raise _LineError(f"missing field {field!r}", sid)
    value = obj[field]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise _LineError(f"field {field!r} has the wrong type ({type(value).__name__})", sid)
    if isinstance(value, str) and (problem := check_string(value, field)):
        raise _LineError(problem, sid)
    return value


_LIMITS = {**FREE_TEXT_LIMITS, **MAX_LENGTHS}
_MISSING = object()


def _string(obj: dict, field: str, sid: str | None = None) -> str:
    """``_require(obj, field, str, sid)``, with a quick yes for the usual value (a printable string within
    its limit): a paper-scale file checks ~600,000 of them."""
    value = obj.get(field, _MISSING)
    if value.__class__ is str and value.isprintable() and len(value) <= _LIMITS.get(field, len(value)):
        return value
    return _require(obj, field, str, sid)


def _optional_str(obj: dict, field: str, sid: str | None) -> str | None:
    value = obj.get(field)
    if value is None:
        return None
    if value.__class__ is str and value.isprintable() and len(value) <= _LIMITS.get(field, len(value)):
        return value  # _string's quick yes, without a second look-up
    return _require(obj, field, str, sid)


def _text(obj: dict, field: str, sid: str | None = None) -> str:
    value = _string(obj, field, sid)
    if not value.strip():
        raise _LineError(f"field {field!r} is empty", sid)
    return value


def _sentence_id(obj: dict, field: str) -> str:
    value = obj.get(field)
    if value.__class__ is str and value.isprintable() and 0 < len(value) <= _LIMITS[field] and not value.isspace():
        return value  # the usual case, decided as below
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise _LineError(f"missing or invalid field {field!r}")
    if problem := check_string(str(value), field):
        raise _LineError(problem)
    return str(value)


def _username(obj: dict, field: str, sid: str) -> str:
    """The same rule as accounts made in the app: no spaces (nor invisible format characters)."""
    value = obj.get(field)
    if value.__class__ is str:
        try:
            return _checked_username(value, field)
        except _LineError as exc:
            raise _LineError(exc.message, sid) from None
    return _text(obj, field, sid)  # missing or not a string: its error


@lru_cache(maxsize=1 << 12)
def _checked_username(value: str, field: str) -> str:
    """A username that passes ``_username``'s checks, decided once per name (a few names repeat on every
    line of a file) and returned as the first string seen for it, which every record naming it shares."""
    if problem := check_string(value, field):
        raise _LineError(problem)
    if not value.strip():
        raise _LineError(f"field {field!r} is empty")
    if any(c.isspace() or unicodedata.category(c) == "Cf" for c in value):
        raise _LineError(f"field {field!r}: a username cannot contain spaces or invisible characters")
    return value


#: One string per phase and status for every record (a file repeats them on every line).
_PHASES = {phase: sys.intern(phase) for phase in PHASES}
_STATUSES = {status: sys.intern(str(status)) for status in (Status.DRAFT, Status.SUBMITTED)}
# Plain strings: a StrEnum member compares ~5x slower than a str, and a file compares ~300,000 statuses.
_SUBMITTED = _STATUSES[Status.SUBMITTED]
_RECORD_STATUSES = tuple(_STATUSES.values())


def _phase(obj: dict, sid: str) -> str:
    phase = obj.get("phase")
    if phase not in PHASES:
        raise _LineError(f"unknown phase {phase!r} (expected aware or blind)", sid)
    return _PHASES[phase]


def _list_field(obj: dict, field: str, sid: str) -> list:
    """An optional list field (absent, null or empty: no items); anything but a list is the line's error
    (a number used to crash the import)."""
    value = obj.get(field) or []
    if not isinstance(value, list):
        raise _LineError(f"field {field!r} must be a list, not {type(value).__name__}", sid)
    return value


def _parse_sentence(obj: dict) -> SentenceRecord:
    sid = _sentence_id(obj, "id")
    domain = _text(obj, "domain", sid)
    if problem := check_name(domain, "domain"):
        raise _LineError(problem, sid)
    split = obj.get("split")
    if split not in SPLITS:
        raise _LineError(f"unknown split {split!r} (expected {', '.join(SPLITS)})", sid)
    text = _require(obj, "text", str, sid)
    if not text.strip():
        raise _LineError("field 'text' is empty", sid)
    aspects = []
    for i, a in enumerate(_list_field(obj, "aspects", sid)):
        if not isinstance(a, dict):
            raise _LineError(f"aspect {i + 1} is not an object", sid)
        term = _require(a, "term", str, sid)
        start, end = _require(a, "from", int, sid), _require(a, "to", int, sid)
        if not 0 <= start < end <= len(text):
            raise _LineError(f"aspect {term!r}: offsets {start}:{end} are outside the text", sid)
        if text[start:end] != term:
            raise _LineError(f"offset mismatch: text[{start}:{end}] is {text[start:end]!r} but term is {term!r}", sid)
        polarity = a.get("polarity")
        if polarity is not None and polarity not in POLARITIES:
            raise _LineError(f"aspect {term!r}: unknown polarity {polarity!r}", sid)
        aspects.append(AspectRecord(term, start, end, polarity))
    categories = []
    for c in _list_field(obj, "categories", sid):
        if not isinstance(c, dict) or not isinstance(c.get("category"), str):
            raise _LineError("category without a 'category' name", sid)
        _require(c, "category", str, sid)
        if c.get("polarity") is not None and c["polarity"] not in POLARITIES:
            raise _LineError(f"category {c['category']!r}: unknown polarity {c['polarity']!r}", sid)
        categories.append(CategoryRecord(c["category"], c.get("polarity")))
    return SentenceRecord(SentenceKey(domain, split, sid), text, tuple(aspects), tuple(categories))


def _parse_aspect_map(value: Any, sid: str) -> tuple[AspectLink, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _LineError("aspect_map is not a list", sid)
    links = []
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("aspect"), int) or isinstance(entry.get("aspect"), bool):
            raise _LineError("aspect_map entry needs an integer 'aspect' index", sid)
        if entry.get("dropped"):
            links.append(AspectLink(entry["aspect"], dropped=True, reason=entry.get("reason")))
        else:
            start, end = entry.get("from"), entry.get("to")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not 0 <= start < end:
                raise _LineError(f"aspect_map entry for aspect {entry['aspect']} needs 0 <= from < to", sid)
            links.append(AspectLink(entry["aspect"], start, end))
    return tuple(links)


def _parse_translation(obj: dict, sid: str) -> tuple:
    """The translation's fields after its key (``TranslationRecord`` order, without ``line``)."""
    phase = _phase(obj, sid)
    translator = _username(obj, "translator", sid)  # not-vocabulary: the field
    untranslatable = obj.get("untranslatable", False)
    if not isinstance(untranslatable, bool):
        raise _LineError("field 'untranslatable' must be true or false", sid)
    text = obj.get("text")
    if text is not None and not isinstance(text, str):
        raise _LineError("field 'text' must be a string or null", sid)
    if text is not None and (problem := check_string(text, "text")):
        raise _LineError(problem, sid)
    if text is not None and (found := line_break_in(text)):
        raise _LineError(f"field 'text' contains {found}: a translation is one line (the app saves a line "
                         "break or tab as a space); replace it and import again", sid)
    status = obj.get("status", _SUBMITTED)
    if status not in _RECORD_STATUSES:
        raise _LineError(f"unknown status {status!r}", sid)
    time_spent_s = obj.get("time_spent_s")
    if time_spent_s is not None and (isinstance(time_spent_s, bool) or not isinstance(time_spent_s, (int, float))
                                     or not 0 <= time_spent_s <= MAX_TIME_SPENT_S):  # NaN fails both
        raise _LineError(f"field 'time_spent_s' must be a finite number of seconds, 0 to {MAX_TIME_SPENT_S:,}", sid)
    if text is not None:
        text = normalize(text)
    if not untranslatable and status == _SUBMITTED and (not text or text.isspace()):
        raise _LineError("a translation that is not untranslatable needs a non-empty text", sid)
    reason = _optional_str(obj, "reason", sid)
    reason_text = _optional_str(obj, "reason_text", sid)
    if reason is not None and reason not in UNTRANSLATABLE_REASONS:
        reason, reason_text = "other", free_reason_text(reason, reason_text)
    aspect_map = _parse_aspect_map(obj.get("aspect_map"), sid)
    if aspect_map and (refused := map_refusals(text, [(k.aspect_index, k.start, k.end, k.dropped) for k in aspect_map])):
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        raise _LineError(f"aspect_map: {refused[0]}{more}", sid)
    return (phase, translator, text, untranslatable, reason, reason_text, aspect_map, time_spent_s,
            _optional_str(obj, "guidelines_version", sid), _STATUSES[status],
            _optional_str(obj, "submitted_at", sid) if status == _SUBMITTED else None)


@lru_cache(maxsize=1 << 16)
def _canonical_token(token: str) -> str:
    """NFC and shared: a paper-scale file repeats a few thousand words ~1.4 million times."""
    return sys.intern(normalize(token))


_PLAIN_BIO = re.compile("(?:O|BI*)*")


def plainly_valid_bio(tags: list) -> bool:
    """A quick yes for tags ``corpus.bio.validate_tags`` finds no problem in: every tag is one of B, I, O
    and no I starts the sentence or follows O (one regex over the joined tags). A no is left to
    ``validate_tags``, which names the problems (``tests/unit/test_workfile_parse.py`` pins the two equal)."""
    if not set(map(type, tags)) <= {str}:
        return False
    text = "".join(tags)
    return len(text) == len(tags) and "" not in tags and _PLAIN_BIO.fullmatch(text) is not None


def _parse_annotation(obj: dict, sid: str) -> tuple:
    """The annotation's fields after its key (``AnnotationRecord`` order, without ``line``)."""
    phase = _phase(obj, sid)
    translator = _username(obj, "translator", sid)  # not-vocabulary: the field
    annotator = _username(obj, "annotator", sid)  # not-vocabulary: the field
    tags = obj.get("tags")
    if tags.__class__ is not list:
        tags = _require(obj, "tags", list, sid)  # missing or not a list: its error
    if not plainly_valid_bio(tags) and (problems := validate_tags(tags)):
        raise _LineError(f"invalid BIO tags: {'; '.join(str(p) for p in problems[:5])}", sid)
    status = obj.get("status", _SUBMITTED)
    if status not in _RECORD_STATUSES:
        raise _LineError(f"unknown status {status!r}", sid)
    tokens = obj.get("tokens")
    if tokens is not None:
        if not isinstance(tokens, list) or not set(map(type, tokens)) <= {str}:  # json makes exact str
            raise _LineError("field 'tokens' must be a list of strings", sid)
        tokens = tuple(map(_canonical_token, tokens))
        if len(tokens) != len(tags):
            raise _LineError(f"{len(tokens)} tokens but {len(tags)} tags", sid)
    return (phase, translator, annotator, tokens, tuple(tags), _STATUSES[status],
            _optional_str(obj, "submitted_at", sid) if status == _SUBMITTED else None)


#: A translation's recorded time (seconds); more is a typo or a hostile file (a float column takes no 1e400).
MAX_TIME_SPENT_S = 10**9

_scan_json = make_scanner(json_input.STRICT)
"""``json.loads``'s own (C) scanner without its wrapper: one JSON value at a position, and where it ends
(refusing non-finite numbers, as ``corpus.json_input.loads`` does)."""


def _sentence_id_of(line: str) -> str | None:
    """The sentence a refused line names, for its located error (read leniently: the line was refused)."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    sid = obj.get("sentence_id", obj.get("id")) if isinstance(obj, dict) else None
    return str(sid) if isinstance(sid, (str, int)) and not isinstance(sid, bool) else None


def _lines(data: bytes | str) -> Iterator[tuple[int, bytes | str]]:
    """(line number, line) without copying the file into a list: a paper-scale file is ~70 MB.
    JSONL lines end at "\n" only: str.splitlines() would also break inside a text holding U+2028,
    U+2029 or U+0085, which json.dumps(ensure_ascii=False) writes unescaped."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    start, number = 0, 1
    while start <= len(data):
        end = data.find(newline, start)
        if end < 0:
            end = len(data)
        yield number, data[start:end]
        start, number = end + 1, number + 1


def parse_work_file(
    data: bytes | str, filename: str, known_keys: Iterable[SentenceKey] = ()
) -> tuple[WorkFile, list[LocatedError]]:
    """Parse every line; references resolve against the file's sentences plus ``known_keys`` (the database).

    One pass over the lines keeps records, not parsed JSON objects (a paper-scale file's objects took
    ~700 MB): a translation or annotation is checked at once and becomes a record at the end, when every
    sentence of the file is known and its key can be resolved. Errors come as before: unreadable lines,
    then sentences, then translations and annotations, each in line order; a line that names an unknown
    sentence says so before any other problem it has."""
    line_errors: list[LocatedError] = []
    sentence_errors: list[LocatedError] = []
    work = WorkFile()
    seen_sentences: dict[SentenceKey, int] = {}
    pending: list[tuple | None] = []  # line, type, where it points, fields or _LineError, its sentence_id
    for number, raw in _lines(data):
        try:
            line = raw if raw.__class__ is str else raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            return WorkFile(), [LocatedError(filename, f"not valid UTF-8 ({exc.reason})", line=number)]
        line = line.removesuffix("\r")
        if not line or line.isspace():
            continue
        try:
            obj, end = _scan_json(line, 0)
        except Exception:  # noqa: BLE001  (json.loads below words the error)
            end = -1
        try:
            if end != len(line):  # an error, or whitespace around the value: as json.loads reads it
                obj = json_input.loads(line)
        except json_input.NotFinite as exc:
            line_errors.append(LocatedError(filename, str(exc), line=number,
                                            sentence_id=_sentence_id_of(line)))
            continue
        except json.JSONDecodeError as exc:
            line_errors.append(LocatedError(filename, f"not valid JSON: {exc.msg} (column {exc.colno})", line=number))
            continue
        except (ValueError, RecursionError) as exc:  # e.g. nesting too deep, a number with too many digits
            line_errors.append(LocatedError(filename, f"not valid JSON: {str(exc) or type(exc).__name__}", line=number))
            continue
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "translation" or kind == "annotation":
            pending.append((number, kind, *_parse_work_line(obj, kind), obj.get("sentence_id")))
        elif kind == "sentence":
            try:
                record = _parse_sentence(obj)
            except _LineError as exc:
                sentence_errors.append(LocatedError(filename, exc.message, line=number, sentence_id=exc.sentence_id))
                continue
            if record.key in seen_sentences:
                sentence_errors.append(LocatedError(filename, f"duplicate sentence {record.key} (first at line {seen_sentences[record.key]})", line=number, sentence_id=record.key.id))
                continue
            seen_sentences[record.key] = number
            work.sentences.append(_with_line(record, number))
        else:
            line_errors.append(LocatedError(filename, "each line must be an object with type sentence, translation or annotation", line=number))

    # Every record of a sentence shares its key (and the key's strings): one per sentence, not per line.
    keys: dict[SentenceKey, SentenceKey] = {key: key for key in seen_sentences}
    by_id: dict[str, set[SentenceKey]] = {}
    for key in list(seen_sentences) + list(known_keys):
        key = keys.setdefault(key, key)
        by_id.setdefault(key.id, set()).add(key)

    errors = line_errors + sentence_errors
    seen_work: dict[tuple, int] = {}
    for i, entry in enumerate(pending):
        pending[i] = None  # let the entry go once it is a record
        number, kind, where, fields, obj_sid = entry
        try:
            if where is None:  # no usable sentence id: the resolution's own error
                raise fields
            sid, domain, split = where
            if domain.__class__ is str and split.__class__ is str:  # fully named (as dump-work writes)
                key = keys.get((domain, split, sid))
                if key is None:
                    raise _LineError("refers to an unknown sentence", sid)
            else:
                key = _resolve_id(sid, domain, split, by_id)
            if fields.__class__ is _LineError:
                raise fields
        except _LineError as exc:
            sid = obj_sid if where is None else where[0]
            errors.append(LocatedError(filename, exc.message, line=number, sentence_id=exc.sentence_id or str(sid)))
            continue
        # fields: phase, translator, then (annotations) annotator
        identity = (kind, key, *fields[:2]) if kind == "translation" else (kind, key, *fields[:3])
        if identity in seen_work:
            errors.append(LocatedError(filename, f"duplicate {kind} (first at line {seen_work[identity]})", line=number, sentence_id=key.id))
            continue
        seen_work[identity] = number
        if kind == "translation":
            work.translations.append(TranslationRecord(key, *fields, number))
        else:
            work.annotations.append(AnnotationRecord(key, *fields, number))
    return work, errors


def _parse_work_line(obj: dict, kind: str) -> tuple[tuple | None, Any]:
    """A translation or annotation line checked before its sentence is resolved: the fields naming the
    sentence (None if its id is unusable) and the record's fields after its key, or the line's error."""
    try:
        sid = _sentence_id(obj, "sentence_id")
    except _LineError as exc:
        return None, exc
    where = (sid, obj.get("domain"), obj.get("split"))
    try:
        return where, (_parse_translation(obj, sid) if kind == "translation" else _parse_annotation(obj, sid))
    except _LineError as exc:
        return where, exc


def _with_line(record, line: int):  # noqa: ANN001, ANN202
    return replace(record, line=line)


def _resolve_id(sid: str, domain: Any, split: Any, by_id: dict[str, set[SentenceKey]]) -> SentenceKey:
    candidates = by_id.get(sid, set())
    if isinstance(domain, str) and isinstance(split, str):  # fully named (as dump-work writes): one look-up
        key = SentenceKey(domain, split, sid)
        if key in candidates:
            return key
        raise _LineError("refers to an unknown sentence", sid)
    if domain is not None:
        candidates = {k for k in candidates if k.domain == domain}
    if split is not None:
        candidates = {k for k in candidates if k.split == split}
    if not candidates:
        raise _LineError("refers to an unknown sentence", sid)
    if len(candidates) > 1:
        raise _LineError("sentence id is ambiguous in this project: add domain and split", sid)
    return next(iter(candidates))


# ---------------------------------------------------------------- dump


def _dumps(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False)


def sentence_object(r: SentenceRecord) -> dict:
    obj: dict[str, Any] = {"type": "sentence", "id": r.key.id, "domain": r.key.domain, "split": r.key.split, "text": r.text,
                           "aspects": [{"term": a.term, "from": a.start, "to": a.end, "polarity": a.polarity} for a in r.aspects]}
    if r.categories:
        obj["categories"] = [{"category": c.category, "polarity": c.polarity} for c in r.categories]
    return obj


def translation_object(r: TranslationRecord) -> dict:
    obj: dict[str, Any] = {"type": "translation", "sentence_id": r.key.id, "domain": r.key.domain, "split": r.key.split,
                           "phase": r.phase, "translator": r.translator,
                           "text": None if r.text is None else breaks_as_spaces(r.text), "untranslatable": r.untranslatable}
    if r.reason is not None:
        obj["reason"] = r.reason
    if r.reason_text:
        obj["reason_text"] = r.reason_text
    if r.aspect_map:
        obj["aspect_map"] = [
            {"aspect": link.aspect_index, "dropped": True, "reason": link.reason} if link.dropped
            else {"aspect": link.aspect_index, "from": link.start, "to": link.end}
            for link in sorted(r.aspect_map, key=lambda x: x.aspect_index)
        ]
    if r.status != Status.SUBMITTED:
        obj["status"] = r.status
    if r.submitted_at is not None:
        obj["submitted_at"] = r.submitted_at
    if r.time_spent_s:
        obj["time_spent_s"] = r.time_spent_s
    if r.guidelines_version:
        obj["guidelines_version"] = r.guidelines_version
    return obj


def annotation_object(r: AnnotationRecord) -> dict:
    obj: dict[str, Any] = {"type": "annotation", "sentence_id": r.key.id, "domain": r.key.domain, "split": r.key.split,
                           "phase": r.phase, "translator": r.translator, "annotator": r.annotator,
                           "tokens": list(r.tokens or ()), "tags": list(r.tags)}
    if r.status != Status.SUBMITTED:
        obj["status"] = r.status
    if r.submitted_at is not None:
        obj["submitted_at"] = r.submitted_at
    return obj


def dump_work_file(work: WorkFile) -> str:
    lines = [_dumps(sentence_object(r)) for r in sorted(work.sentences, key=lambda r: r.key)]
    lines += [_dumps(translation_object(r)) for r in sorted(work.translations, key=lambda r: (r.key, r.phase, r.translator))]
    lines += [_dumps(annotation_object(r)) for r in sorted(work.annotations, key=lambda r: (r.key, r.phase, r.translator, r.annotator))]
    return "".join(line + "\n" for line in lines)
