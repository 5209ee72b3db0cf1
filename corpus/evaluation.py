"""Scoring an outside model's predictions for the test split, LinCE-style: read, check against gold, score.

A team trains on the export and sends predictions for the test split as CoNLL (token, tab, tag; a blank
line between sentences; optional ``# id = …`` lines; the tag is the last column) or JSONL (one object
per sentence: ``tokens``, ``tags`` and optionally ``id``). Sentences are matched to the gold by id when
every prediction has one, else by position (the order of the export's ``conll/test.conll``). Every token
must equal the export's token: a mismatch is a located error naming the sentence, and the file is
refused whole. Errors name tokens and counts, never gold tags, so the check reveals no test labels.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import BinaryIO

from corpus import json_input
from corpus.baseline import SCORING, LabelledSequence, span_scores
from corpus.errors import LocatedError
from corpus.tokens import TOKENIZER_SIGNATURE, normalize

EVALUATION_VERSION = "1.0"
MAX_ERRORS = 50
FORMATS = ("conll", "jsonl")


@dataclass(frozen=True)
class PredictedSentence:
    """One predicted sentence as read; ``line`` is where it starts in the file."""

    id: str | None
    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    line: int


class PredictionsRejected(ValueError):
    """The predictions cannot be scored; ``errors`` say where (file, line, sentence)."""

    def __init__(self, errors: Sequence[LocatedError]):
        self.errors = list(errors)
        super().__init__("\n".join(str(e) for e in self.errors[:20]))


def plain_tag(tag: str) -> str | None:
    """``B``/``I``/``O`` from ``B``, ``b``, ``B-ASP``, ``I-aspect``…; None for anything else."""
    head, sep, _type = tag.strip().partition("-")
    head = head.upper()
    if head == "O" and not sep:
        return "O"
    return head if head in ("B", "I") else None


#: The largest predictions file read (the CLI's and the Dataset check's). The export's test split as
#: CoNLL is about 0.5 KB a sentence, as JSONL with escaped Devanagari about 1.5 KB: 32 MB holds a test split
#: of 20,000 sentences with room to spare. A larger file is refused before it is read.
MAX_PREDICTIONS_BYTES = 32 * 1024 * 1024
#: The longest line read (a JSONL sentence); longer is a located error, never a parse of it.
MAX_LINE_BYTES = 1024 * 1024
Predictions = bytes | BinaryIO


def _size(source: Predictions) -> int | None:
    """The bytes left to read, without reading them: None for a stream that cannot tell."""
    if isinstance(source, (bytes, bytearray)):
        return len(source)
    try:
        return os.fstat(source.fileno()).st_size - source.tell()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    try:
        here = source.tell()
        end = source.seek(0, io.SEEK_END)
        source.seek(here)
        return end - here
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def size_problem(source: Predictions, filename: str, max_bytes: int = MAX_PREDICTIONS_BYTES) -> LocatedError | None:
    """A located refusal for a file larger than ``max_bytes``, found from its size alone."""
    size = _size(source)
    if size is None or size <= max_bytes:
        return None
    return LocatedError(filename, _too_large(f"is {_megabytes(size)}", max_bytes), line=1, sentence_id="(none)")


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


def _too_large(what: str, max_bytes: int) -> str:
    return (f"the file {what}; a predictions file is at most {_megabytes(max_bytes)} (the test split's "
            "sentences once each), so it was not read")


def _head(source: Predictions) -> bytes:
    """The file's first non-space byte (or b''), the stream left where it was."""
    if isinstance(source, (bytes, bytearray)):
        return bytes(source.lstrip()[:1])
    if not source.seekable():  # a pipe: what its buffer holds
        return source.peek(64 * 1024).lstrip()[:1] if hasattr(source, "peek") else b""
    here = source.tell()
    try:
        while block := source.read(64 * 1024):
            if stripped := block.lstrip():
                return stripped[:1]
        return b""
    finally:
        source.seek(here)


def detect_format(data: Predictions, filename: str = "") -> str:
    suffix = PurePath(filename).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix in (".conll", ".bio", ".tsv", ".txt", ".iob"):
        return "conll"
    return "jsonl" if _head(data) == b"{" else "conll"


@dataclass
class _Reading:
    """What a reader found: the sentences kept, the errors (at most ``MAX_ERRORS``: reading stops there),
    every sentence counted (``count``, also those past ``keep``) and the number of the last line."""

    sentences: list[PredictedSentence] = field(default_factory=list)
    errors: list[LocatedError] = field(default_factory=list)
    count: int = 0
    last_line: int = 1
    keep: int | None = None

    def add(self, sentence: PredictedSentence) -> None:
        self.count += 1
        if self.keep is None or len(self.sentences) < self.keep:
            self.sentences.append(sentence)

    @property
    def full(self) -> bool:
        return len(self.errors) >= MAX_ERRORS


def _lines(source: Predictions, filename: str, reading: _Reading, sentence_where: Callable[[int], str],
           max_bytes: int | None) -> Iterator[tuple[int, str]]:
    """(number, text) of every line, read one at a time, numbered as ``str.splitlines`` numbers them. A
    line that is not UTF-8 ends the reading with a located error (as a whole-file decode did); a line longer
    than ``MAX_LINE_BYTES`` is a located error and skipped; past ``max_bytes`` the reading stops, refused."""
    stream = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source
    number = physical = read = 0
    while not reading.full:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        physical += 1
        read += len(raw)
        if max_bytes is not None and read > max_bytes:
            reading.errors.append(LocatedError(filename, _too_large(f"goes on past {_megabytes(max_bytes)}",
                                                                    max_bytes),
                                               line=number + 1, sentence_id=sentence_where(number + 1)))
            break
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            reading.errors.append(LocatedError(filename, f"line longer than {_megabytes(MAX_LINE_BYTES)}",
                                               line=number + 1, sentence_id=sentence_where(number + 1)))
            while (rest := stream.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                read += len(rest)
            read += len(rest)
            number += 1
            continue
        try:
            text = raw.decode("utf-8-sig" if physical == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            reading.errors.append(LocatedError(filename, f"not UTF-8: {exc.reason}", line=number + 1,
                                               sentence_id=sentence_where(number + 1)))
            break
        for piece in text.splitlines() or [""]:
            number += 1
            yield number, piece
    reading.last_line = max(1, physical)


def _read_conll(data: Predictions, filename: str, keep: int | None = None,
                max_bytes: int | None = None) -> _Reading:
    reading = _Reading(keep=keep)
    errors = reading.errors
    tokens: list[str] = []
    tags: list[str] = []
    sid: str | None = None
    start: int | None = None

    def flush() -> None:
        nonlocal tokens, tags, sid, start
        if tokens:
            reading.add(PredictedSentence(sid, tuple(tokens), tuple(tags), start or 0))
        elif sid is not None:
            errors.append(LocatedError(filename, "sentence has no tokens", line=start, sentence_id=sid))
        tokens, tags, sid, start = [], [], None, None

    def where(_line: int) -> str:
        return sid or f"#{reading.count + 1}"

    for number, line in _lines(data, filename, reading, where, max_bytes):
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if stripped.startswith("#") and (stripped.startswith("# ") or "=" in stripped):
            key, _, value = stripped[1:].partition("=")
            if key.strip() in ("id", "sent_id"):
                if tokens:
                    flush()
                sid, start = value.strip(), number
            continue
        start = start or number
        fields = [f for f in (line.split("\t") if "\t" in line else line.split())]
        if len(fields) < 2:
            errors.append(LocatedError(filename, f"expected token<TAB>tag, got {stripped[:40]!r}", line=number,
                                       sentence_id=sid or f"#{reading.count + 1}"))
            continue
        tag = plain_tag(fields[-1])
        if tag is None:
            errors.append(LocatedError(filename, f"unknown tag {fields[-1].strip()[:20]!r} (expected B, I or O)",
                                       line=number, sentence_id=sid or f"#{reading.count + 1}"))
            continue
        tokens.append(normalize(fields[0]))
        tags.append(tag)
    if not reading.full:
        flush()
    return reading


def read_conll(data: Predictions, filename: str) -> tuple[list[PredictedSentence], list[LocatedError]]:
    reading = _read_conll(data, filename)
    return reading.sentences, reading.errors


def _read_jsonl(data: Predictions, filename: str, keep: int | None = None,
                max_bytes: int | None = None) -> _Reading:
    reading = _Reading(keep=keep)
    errors = reading.errors
    for number, line in _lines(data, filename, reading, lambda n: f"#{n}", max_bytes):
        if not line.strip():
            continue
        where = f"#{reading.count + 1}"
        try:
            obj = json_input.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(LocatedError(filename, f"not JSON: {exc.msg}", line=number, sentence_id=where))
            continue
        except ValueError as exc:  # a non-finite number (names its field), nesting too deep
            errors.append(LocatedError(filename, str(exc) if isinstance(exc, json_input.NotFinite)
                                       else f"not JSON: {exc}", line=number, sentence_id=where))
            continue
        if not isinstance(obj, dict):
            errors.append(LocatedError(filename, "expected a JSON object per line", line=number, sentence_id=where))
            continue
        sid = obj.get("id")
        sid = str(sid) if sid is not None else None
        tokens, tags = obj.get("tokens"), obj.get("tags")
        if not (isinstance(tokens, list) and isinstance(tags, list)
                and all(isinstance(x, str) for x in tokens + tags)):
            errors.append(LocatedError(filename, "expected \"tokens\" and \"tags\" as lists of strings", line=number,
                                       sentence_id=sid or where))
            continue
        if len(tokens) != len(tags):
            errors.append(LocatedError(filename, f"{len(tokens)} tokens but {len(tags)} tags", line=number,
                                       sentence_id=sid or where))
            continue
        plain = [plain_tag(t) for t in tags]
        bad = next((i for i, t in enumerate(plain) if t is None), None)
        if bad is not None:
            errors.append(LocatedError(filename, f"token {bad + 1}: unknown tag {tags[bad][:20]!r} "
                                       "(expected B, I or O)", line=number, sentence_id=sid or where))
            continue
        reading.add(PredictedSentence(sid, tuple(normalize(t) for t in tokens), tuple(plain), number))
    return reading


def read_jsonl(data: Predictions, filename: str) -> tuple[list[PredictedSentence], list[LocatedError]]:
    reading = _read_jsonl(data, filename)
    return reading.sentences, reading.errors


def match_to_gold(predicted: Sequence[PredictedSentence], gold: Sequence[LabelledSequence], filename: str,
                  end_line: int = 1, count: int | None = None) -> tuple[dict[str, tuple[str, ...]], list[LocatedError]]:
    """Predicted tags by gold key; every gold sentence once, with exactly its tokens, else located errors.
    Every error names a line and a sentence: an error about the whole file (sentences missing or too
    many) names the line where the file ends (``end_line``) or the first extra sentence, and the first
    test sentence it concerns. ``count``: the file's sentences when ``predicted`` holds only the first
    ``len(gold) + 1`` of them (a reader does not keep more: such a file is refused anyway)."""
    errors: list[LocatedError] = []
    pairs: list[tuple[PredictedSentence, LabelledSequence]] = []
    count = len(predicted) if count is None else count
    if count > len(predicted) and len(predicted) > len(gold):
        at = predicted[len(gold)]
        errors.append(LocatedError(
            filename, f"{count} sentences, but the test split has {len(gold)}: from this sentence on, the file "
            "holds more sentences than the test split", line=at.line,
            sentence_id=at.id or f"{len(gold) + 1} (no test sentence)"))
        predicted = predicted[:len(gold) + 1]
    if predicted and all(p.id is not None for p in predicted):
        by_key = {g.key: g for g in gold}
        seen: dict[str, int] = {}
        for p in predicted:
            if p.id not in by_key:
                errors.append(LocatedError(filename, "no sentence with this id in the test split", line=p.line,
                                           sentence_id=p.id))
            elif p.id in seen:
                errors.append(LocatedError(filename, f"predicted twice (first at line {seen[p.id]})", line=p.line,
                                           sentence_id=p.id))
            else:
                seen[p.id] = p.line
                pairs.append((p, by_key[p.id]))
        missing = [g.key for g in gold if g.key not in seen]
        if missing and count == len(predicted):  # else the sentences past those kept may hold them
            errors.append(LocatedError(filename, f"the file ends without a prediction for {len(missing)} test "
                                       f"sentence(s), first {', '.join(missing[:5])}", line=end_line,
                                       sentence_id=missing[0]))
    else:
        if len(predicted) != len(gold) and count == len(predicted):
            extra = len(predicted) > len(gold)
            at = predicted[len(gold)] if extra else None
            errors.append(LocatedError(
                filename, f"{len(predicted)} sentences, but the test split has {len(gold)} (without '# id = …' lines "
                "or \"id\" fields, sentences are matched by position): "
                + ("this sentence and those after it match none" if extra else "the file ends before this one"),
                line=at.line if at is not None else end_line,
                sentence_id=(f"{len(gold) + 1} (no test sentence)" if extra else gold[len(predicted)].key)))
        pairs = list(zip(predicted, gold))
    for p, g in pairs:
        problem = token_mismatch(p.tokens, g.tokens)
        if problem:
            errors.append(LocatedError(filename, problem, line=p.line, sentence_id=g.key))
    return {g.key: p.tags for p, g in pairs}, errors


def token_mismatch(predicted: Sequence[str], gold: Sequence[str]) -> str | None:
    """Where the predicted tokens leave the export's tokens, in words; None if they are the same."""
    for i, (p, g) in enumerate(zip(predicted, gold)):
        if normalize(p) != g:
            return f"token {i + 1} is {p!r}, the export has {g!r} (use the export's tokens)"
    if len(predicted) != len(gold):
        return f"{len(predicted)} tokens, the export has {len(gold)} (use the export's tokens)"
    return None


def score_by_domain(gold: Sequence[LabelledSequence], predicted: dict[str, Sequence[str]]) -> dict[str, dict]:
    """seqeval strict IOB2 P/R/F1 per domain and ``all``, with the number of sentences scored."""
    out = {}
    for domain in [*sorted({g.domain for g in gold}), "all"]:
        chosen = [g for g in gold if domain in ("all", g.domain)]
        out[domain] = {**span_scores([g.tags for g in chosen], [predicted[g.key] for g in chosen]),
                       "test_sentences": len(chosen)}
    return out


def gold_version(gold: Sequence[LabelledSequence]) -> str:
    """The export version a score belongs to: a fingerprint of the test split's ids, tokens and gold tags
    (and the tokenizer), so a changed gold label or retokenized sentence makes a new version."""
    digest = hashlib.sha256(TOKENIZER_SIGNATURE.encode())
    for g in sorted(gold, key=lambda s: s.key):
        digest.update(json.dumps([g.key, g.tokens, g.tags], ensure_ascii=False).encode())
    return f"test-{digest.hexdigest()[:12]}"


def signature() -> str:
    return f"evaluate/{EVALUATION_VERSION}|scoring={SCORING}|tokenizer={TOKENIZER_SIGNATURE}"


@dataclass(frozen=True)
class Evaluation:
    scores: dict[str, dict]
    export_version: str
    sentences: int
    format: str

    @property
    def f1(self) -> float | None:
        return self.scores["all"]["f1"]


def evaluate_predictions(data: Predictions, filename: str, gold: Sequence[LabelledSequence], fmt: str | None = None,
                         max_bytes: int = MAX_PREDICTIONS_BYTES) -> Evaluation:
    """Read, check and score; raises PredictionsRejected (every error located) if anything does not fit."""
    if not gold:
        raise PredictionsRejected([LocatedError(filename, NO_TEST_GOLD)])
    tags, fmt, errors = check_predictions(data, filename, gold, fmt, max_bytes)
    if errors:
        raise PredictionsRejected(errors[:MAX_ERRORS])
    return Evaluation(score_by_domain(gold, tags), gold_version(gold), len(gold), fmt)


def check_predictions(data: Predictions, filename: str, gold: Sequence[LabelledSequence], fmt: str | None = None,
                      max_bytes: int = MAX_PREDICTIONS_BYTES) -> tuple[dict[str, tuple[str, ...]], str, list[LocatedError]]:
    """Everything ``evaluate_predictions`` checks, without scoring: (tags by gold key, format, located errors).
    The Dataset check runs it as soon as a file is uploaded, so a file is refused before it can be submitted.
    ``data`` is the file's bytes or a binary file (read as a stream, a line at a time). A file larger than
    ``max_bytes`` is refused from its size, before it is read; a stream that cannot tell its size is
    refused once it goes past ``max_bytes``. At most ``len(gold) + 1`` sentences are kept, and reading
    stops at ``MAX_ERRORS`` errors, so memory stays bounded whatever the file holds."""
    if not gold:
        return {}, fmt or "", [LocatedError(filename, NO_TEST_GOLD, line=1, sentence_id="(none)")]
    if too_large := size_problem(data, filename, max_bytes):
        return {}, fmt or "", [too_large]
    fmt = fmt or detect_format(data, filename)
    if fmt not in FORMATS:
        raise ValueError(f"evaluate: unknown format {fmt!r} (expected {' or '.join(FORMATS)})")
    read = _read_conll if fmt == "conll" else _read_jsonl
    reading = read(data, filename, keep=len(gold) + 1, max_bytes=max_bytes)
    errors = reading.errors
    tags: dict[str, tuple[str, ...]] = {}
    if not errors:
        tags, errors = match_to_gold(reading.sentences, gold, filename, reading.last_line, reading.count)
    return tags, fmt, errors[:MAX_ERRORS]


NO_TEST_GOLD = ("the project has no test split with gold labels to score against (import a SemEval test file, "
                "then translate, tag and adjudicate its sentences)")


def format_scores(scores: dict[str, dict]) -> str:
    lines = [f"  {'domain':<12} {'P':>6} {'R':>6} {'F1':>6} {'sentences':>10}"]
    for domain, f in scores.items():
        cells = " ".join(f"{f[k]:>6.3f}" if f[k] is not None else f"{'n/a':>6}" for k in ("precision", "recall", "f1"))
        lines.append(f"  {domain:<12} {cells} {f['test_sentences']:>10}")
    return "\n".join(lines)
