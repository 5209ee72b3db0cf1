"""SemEval-2014 Task 4 XML → sentence records plus located errors.

Offsets are the truth: aspects are located by ``from``/``to``, never by string search, and a file
whose ``text[from:to]`` differs from ``term`` is refused with every mismatch named by sentence id.
Real-file quirks (leading NBSP, mid-word spans, repeated terms, duplicate texts) are imported as
they are and flagged for review. External entities are never resolved (defusedxml).
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import BinaryIO

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from corpus.errors import LocatedError
from corpus.records import POLARITIES, AspectRecord, CategoryRecord, SentenceKey, SentenceRecord
from corpus.workfile import check_name, check_string

Problems = list[LocatedError]

# What a SemEval file name says (e.g. ``Laptops_Test_Gold.xml``, ``Restaurants_Train_v2.xml``).
_NAME_DOMAINS = ("laptop", "restaurant")
_NAME_SPLITS = ("train", "test")


def _one_named(name: str, words: tuple[str, ...]) -> str | None:
    found = [word for word in words if word in name]
    return found[0] if len(found) == 1 else None


def domain_and_split_from_name(filename: str) -> tuple[str | None, str | None]:
    """The domain and split a file's name says, each None when it names none or both (a guess the importer
    shows as a pre-filled choice, never a silent default)."""
    name = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    return _one_named(name, _NAME_DOMAINS), _one_named(name, _NAME_SPLITS)


class _LineTreeBuilder(ET.TreeBuilder):
    """Records the source line of every element so errors can say where."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: DefusedXMLParser | None = None
        self.lines: dict[int, int] = {}

    def start(self, tag, attrs):  # noqa: ANN001, ANN201
        element = super().start(tag, attrs)
        self.lines[id(element)] = self.parser.parser.CurrentLineNumber if self.parser else 0
        return element


def _safe_parser(target: ET.TreeBuilder) -> DefusedXMLParser:
    """Expat through defusedxml: a DTD may be present, but no entity is ever declared or resolved (XXE)."""
    return DefusedXMLParser(target=target, forbid_dtd=False, forbid_entities=True, forbid_external=True)


def _xml_problem(exc: Exception, filename: str) -> LocatedError:
    if isinstance(exc, DefusedXmlException):
        return LocatedError(filename, f"forbidden XML construct (entities are not allowed): {exc}")
    line = exc.position[0] if getattr(exc, "position", None) else None
    return LocatedError(filename, f"malformed XML: {exc}", line=line)


#: How much of a file the streaming reader hands the XML parser at a time.
CHUNK_BYTES = 1 << 16
Source = bytes | str | BinaryIO


class _SentenceByFeed(_LineTreeBuilder):
    """Builds the tree one child of the root at a time: each child is handed over (``closed``) when its end
    tag is read and detached from the root, so a file of any size holds one chunk's sentences in memory,
    never the whole tree."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.root: ET.Element | None = None
        self.closed: list[ET.Element] = []

    def start(self, tag, attrs):  # noqa: ANN001, ANN201
        element = super().start(tag, attrs)
        self.depth += 1
        if self.depth == 1:
            self.root = element
        return element

    def end(self, tag):  # noqa: ANN001, ANN201
        element = super().end(tag)
        self.depth -= 1
        if self.depth == 1 and self.root is not None:
            self.root.remove(element)
            self.closed.append(element)
        return element


def _chunks(source: Source) -> Iterator[bytes | str]:
    if isinstance(source, (bytes, bytearray, str)):
        for at in range(0, len(source), CHUNK_BYTES):
            yield source[at:at + CHUNK_BYTES]
        return
    while chunk := source.read(CHUNK_BYTES):
        yield chunk


def _text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.strip().encode("utf-8", "surrogatepass"), digest_size=16).digest()


class SemevalReader:
    """One streaming pass over a SemEval file: ``records(source)`` yields its valid sentences in file order
    while ``errors`` collects every located problem; a malformed or forbidden XML construct ends the pass
    (``fatal``, that error alone). The texts are counted by digest, so that a second pass, given
    ``duplicate_texts`` from the first, flags duplicate texts without holding the file's sentences."""

    def __init__(self, filename: str, domain: str, split: str, duplicate_texts: frozenset[bytes] = frozenset(),
                 keep: int = 0):
        self.filename, self.domain, self.split = filename, domain, split
        self.errors: Problems = []
        self.fatal = False
        self.sentences = 0
        self.aspects = 0
        self.text_counts: Counter[bytes] = Counter()
        self._duplicates = duplicate_texts
        self._seen: dict[str, int] = {}
        self._keep = keep
        self._kept: list[tuple[SentenceRecord, bytes]] | None = [] if keep > 0 else None
        self._bytes = hashlib.blake2b(digest_size=16)

    @property
    def duplicate_texts(self) -> frozenset[bytes]:
        return frozenset(digest for digest, n in self.text_counts.items() if n > 1)

    @property
    def digest(self) -> bytes:
        """A digest of every byte (or character) the pass read: ``source_digest`` of the same file matches it."""
        return self._bytes.digest()

    def kept_records(self) -> list[SentenceRecord] | None:
        """Every record of the pass, duplicate texts flagged as a second pass given ``duplicate_texts`` flags
        them, when the reader was asked to ``keep`` that many (a small file is then parsed once); None when
        the file held more sentences, or could not be read."""
        if self._kept is None or self.fatal:
            return None
        duplicates = self.duplicate_texts
        return [replace(record, flags=record.flags + ("duplicate-text",)) if digest in duplicates else record
                for record, digest in self._kept]

    def records(self, source: Source) -> Iterator[SentenceRecord]:
        names = [problem for value, field in ((self.domain, "domain"), (self.split, "split"))
                 if (problem := check_name(value, field))]
        if names:  # a domain or split names export files: refused before anything is read
            self.errors.extend(LocatedError(self.filename, problem) for problem in names)
            self.fatal = True
            return
        builder = _SentenceByFeed()
        parser = _safe_parser(builder)
        builder.parser = parser
        try:
            for chunk in _chunks(source):
                self._bytes.update(_as_bytes(chunk))
                parser.feed(chunk)
                if self._wrong_root(builder):
                    return
                yield from self._take(builder)
            parser.close()
        except (ET.ParseError, DefusedXmlException) as exc:
            self._fail(_xml_problem(exc, self.filename))
            return
        if not self._wrong_root(builder):
            yield from self._take(builder)

    def _wrong_root(self, builder: _SentenceByFeed) -> bool:
        root = builder.root
        if root is None or root.tag == "sentences":
            return False
        self._fail(LocatedError(self.filename, f"root element is <{root.tag}>, expected <sentences>",
                                line=builder.lines.get(id(root))))
        return True

    def _fail(self, error: LocatedError) -> None:
        self.errors = [error]  # a file that is not readable XML reports that alone
        self.fatal = True

    def _take(self, builder: _SentenceByFeed) -> Iterator[SentenceRecord]:
        closed, builder.closed = builder.closed, []
        for element in closed:
            record = self._sentence(element, builder.lines)
            for part in element.iter():
                builder.lines.pop(id(part), None)
            if record is not None:
                yield record

    def _sentence(self, element: ET.Element, lines: dict[int, int]) -> SentenceRecord | None:
        line = lines.get(id(element))
        if element.tag != "sentence":
            self.errors.append(LocatedError(self.filename, f"unexpected element <{element.tag}> in <sentences>",
                                            line=line))
            return None
        record, problems = _parse_sentence(element, lines, self.filename, self.domain, self.split)
        self.errors.extend(problems)
        if record is None:
            return None
        if record.key.id in self._seen:
            self.errors.append(LocatedError(
                self.filename, f"duplicate sentence id (first at line {self._seen[record.key.id]})", line=line,
                sentence_id=record.key.id))
            return None
        self._seen[record.key.id] = line or 0
        digest = _text_digest(record.text)
        self.text_counts[digest] += 1
        self.sentences += 1
        self.aspects += len(record.aspects)
        if digest in self._duplicates:
            record = replace(record, flags=record.flags + ("duplicate-text",))
        if self._kept is not None:
            if len(self._kept) < self._keep:
                self._kept.append((record, digest))
            else:  # more than it may hold: the caller reads the file again
                self._kept = None
        return record


def _as_bytes(chunk: bytes | str) -> bytes:
    return chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else chunk


def source_digest(source: Source) -> bytes:
    """The digest ``SemevalReader.digest`` gives after a pass over the same bytes, read without parsing."""
    digest = hashlib.blake2b(digest_size=16)
    for chunk in _chunks(source):
        digest.update(_as_bytes(chunk))
    return digest.digest()


def parse_semeval(
    data: Source, filename: str, domain: str, split: str
) -> tuple[list[SentenceRecord], Problems]:
    """Every valid sentence of a SemEval file (bytes, text or a binary file) and the located errors. The
    file is read as a stream (its tree is never built whole); the records themselves are kept, so a very
    large file goes through ``db.importing.import_semeval_stream`` instead, which holds none."""
    reader = SemevalReader(filename, domain, split)
    records = list(reader.records(data))
    if reader.fatal:
        return [], reader.errors
    return _flag_duplicate_texts(records), reader.errors


def _parse_sentence(
    element: ET.Element, lines: dict[int, int], filename: str, domain: str, split: str
) -> tuple[SentenceRecord | None, Problems]:
    line = lines.get(id(element))
    sid = element.get("id")
    if not sid or not sid.strip():
        return None, [LocatedError(filename, "sentence without an id attribute", line=line)]
    if problem := check_string(sid, "id"):
        return None, [LocatedError(filename, problem.replace("field 'id'", "sentence id"), line=line)]
    text_el = element.find("text")
    if text_el is None or text_el.text is None:
        return None, [LocatedError(filename, "sentence without <text>", line=line, sentence_id=sid)]
    text = text_el.text
    if len(text_el):
        # ElementTree would keep only the characters before the first child: refuse rather than truncate
        return None, [LocatedError(filename, f"sentence <text> contains markup (<{text_el[0].tag}>); write it "
                                   "escaped, as &lt; and &gt;", line=line, sentence_id=sid)]
    if not text.strip():
        # the work file refuses an empty text, so such a sentence could never be restored from a dump
        return None, [LocatedError(filename, "sentence <text> is empty", line=line, sentence_id=sid)]
    errors: Problems = []
    aspects: list[AspectRecord] = []
    for term_el in element.iterfind("aspectTerms/aspectTerm"):
        aspect, problems = _parse_aspect(term_el, text, filename, lines.get(id(term_el)), sid)
        errors.extend(problems)
        if aspect is not None:
            aspects.append(aspect)
    categories: list[CategoryRecord] = []
    for cat_el in element.iterfind("aspectCategories/aspectCategory"):
        cat_line = lines.get(id(cat_el))
        category = cat_el.get("category")
        polarity = cat_el.get("polarity")
        if not category:
            errors.append(LocatedError(filename, "aspectCategory without category", line=cat_line, sentence_id=sid))
            continue
        if problem := check_string(category, "category"):
            errors.append(LocatedError(filename, problem, line=cat_line, sentence_id=sid))
            continue
        if polarity is not None and polarity not in POLARITIES:
            errors.append(LocatedError(filename, f"unknown polarity {polarity!r}", line=cat_line, sentence_id=sid))
            continue
        categories.append(CategoryRecord(category, polarity))
    if errors:
        return None, errors
    flags = []
    if text.startswith("\xa0"):
        flags.append("leading-nbsp")
    if text != text.strip():
        flags.append("surrounding-whitespace")
    if any(a.flags for a in aspects):
        flags.append("aspect-review")
    return SentenceRecord(SentenceKey(domain, split, sid), text, tuple(aspects), tuple(categories), tuple(flags), line), []


def _parse_aspect(
    element: ET.Element, text: str, filename: str, line: int | None, sid: str
) -> tuple[AspectRecord | None, Problems]:
    def error(message: str) -> tuple[None, Problems]:
        return None, [LocatedError(filename, message, line=line, sentence_id=sid)]

    term = element.get("term")
    if term is None:
        return error("aspectTerm without term")
    try:
        start, end = int(element.get("from", "")), int(element.get("to", ""))
    except ValueError:
        return error(f"aspectTerm {term!r}: from/to are not integers ({element.get('from')!r}, {element.get('to')!r})")
    if not 0 <= start < end <= len(text):
        return error(f"aspectTerm {term!r}: offsets {start}:{end} are outside the text (length {len(text)})")
    if text[start:end] != term:
        return error(f"offset mismatch: text[{start}:{end}] is {text[start:end]!r} but term is {term!r}")
    polarity = element.get("polarity") or None  # empty: no polarity given (our export's unlinked terms)
    if polarity is not None and polarity not in POLARITIES:
        return error(f"aspectTerm {term!r}: unknown polarity {polarity!r} (expected {', '.join(POLARITIES)})")
    return AspectRecord(term, start, end, polarity, tuple(span_flags(text, start, end))), []


def span_flags(text: str, start: int, end: int) -> list[str]:
    """Review flags for a span that is valid but suspicious in the official data."""
    flags = []
    if start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        flags.append("starts-mid-word")
    if end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        flags.append("ends-mid-word")
    if text[start:end] != text[start:end].strip():
        flags.append("edge-whitespace")
    return flags


def _flag_duplicate_texts(records: list[SentenceRecord]) -> list[SentenceRecord]:
    counts = Counter(r.text.strip() for r in records)
    if all(c == 1 for c in counts.values()):
        return records
    out = []
    for r in records:
        if counts[r.text.strip()] > 1:
            r = SentenceRecord(r.key, r.text, r.aspects, r.categories, r.flags + ("duplicate-text",), r.line)
        out.append(r)
    return out
