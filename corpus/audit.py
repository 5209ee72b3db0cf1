"""Quality audit of an existing aspect dataset (SemEval-style XML or CoNLL BIO), seed paper §2.1.

Leads must show their corpus is better than what exists (e.g. Akhtar et al. 2016's Hindi release),
so this reader is *lenient*: where the strict importer refuses, the audit reads on and reports each
defect with its sentence id and line. It reports the seed paper's Table 1 statistics, span
defects counted by kind, terms written in Roman script in some sentences and in Devanagari in
others, sparse domains, and invalid BIO sequences. It never writes to the file it audits.
"""

from __future__ import annotations

import io
import xml.sax
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import regex
from defusedxml import DefusedXmlException
from defusedxml.sax import make_parser

from corpus.bio import char_spans_to_tags, repair_tags, validate_tags
from corpus.errors import LocatedError
from corpus.phonetic import MIN_FUZZY_LENGTH, ZERO_WIDTH, phonetic_key, script_of, words_match
from corpus.stats import LabelledSentence, table1_rows
from corpus.stats import table1 as stats_table1
from corpus.tokens import TOKENIZER_SIGNATURE, normalize, tokenize_with_offsets

AUDIT_VERSION = "1.0"
SPARSE_DOMAIN_SENTENCES = 50
NO_DOMAIN = "(none)"

# Stable defect kinds, in report order (JSON keys and the page's table rely on them).
DEFECT_KINDS = (
    "trailing-whitespace",   # span end swallows whitespace
    "leading-whitespace",    # span start swallows whitespace
    "starts-inside-word",
    "ends-inside-word",      # includes spans that stop before a word's last character
    "offset-mismatch",       # text[from:to] != term (beyond swallowed whitespace)
    "bad-offsets",           # missing, non-integer, out of range or empty offsets
    "overlapping-spans",     # two different spans share characters (one per pair)
    "duplicated-span",       # the same span listed again (one per extra copy)
    "zero-width-in-term",    # ZWSP/ZWNJ/ZWJ/WJ/BOM inside a term
    "unknown-polarity",
    "duplicate-sentence-id",
    "missing-text",
    "invalid-bio",           # CoNLL: I after O or at the start, unknown tag
    "malformed-line",        # CoNLL: a line that is not token<TAB>tag
)
SPAN_DEFECT_KINDS = DEFECT_KINDS[:9]

POLARITY_ALIASES = {
    "positive": "positive", "pos": "positive",
    "negative": "negative", "neg": "negative",
    "neutral": "neutral", "neu": "neutral",
    "conflict": "conflict", "con": "conflict",
}

_WORD_CHAR = regex.compile(r"[\p{L}\p{M}\p{N}\u200c\u200d]")
_DOMAIN_PREFIX = regex.compile(r"^([A-Za-z]+)[_\-:]")
_ZERO_WIDTH_NAMES = {"\u200b": "ZWSP", "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\ufeff": "BOM"}


class AuditInputError(ValueError):
    """The file cannot be read at all (not XML, forbidden DTD/entities, not UTF-8)."""

    def __init__(self, error: LocatedError):
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class AuditAspect:
    """An aspect as written in the file; offsets are None where missing or not integers."""

    term: str | None
    start: int | None
    end: int | None
    polarity: str | None
    line: int | None = None
    raw_from: str | None = None
    raw_to: str | None = None


@dataclass(frozen=True)
class AuditSentence:
    id: str
    domain: str
    text: str | None
    aspects: tuple[AuditAspect, ...] = ()
    line: int | None = None
    tokens: tuple[str, ...] | None = None  # CoNLL only: the file's own tokens and tags
    tags: tuple[str, ...] | None = None
    token_lines: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Defect:
    kind: str
    sentence_id: str
    line: int | None
    term: str | None
    detail: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "sentence_id": self.sentence_id, "line": self.line,
                "term": self.term, "detail": self.detail}


@dataclass
class AuditReport:
    file: str
    format: str
    table1: dict
    domains: list[dict]
    polarities: dict[str, int]
    defects: list[Defect]
    script_inconsistencies: list[dict]
    spelling_variants: list[dict]
    sparse_threshold: int = SPARSE_DOMAIN_SENTENCES
    signature: str = f"audit/{AUDIT_VERSION}|tokens={TOKENIZER_SIGNATURE}"
    notes: list[str] = field(default_factory=list)

    @property
    def defect_counts(self) -> dict[str, int]:
        counts = Counter(d.kind for d in self.defects)
        return {kind: counts.get(kind, 0) for kind in DEFECT_KINDS}

    @property
    def sparse_domains(self) -> list[str]:
        return [d["domain"] for d in self.domains if d["sparse"]]

    def to_dict(self) -> dict:
        """Plain data with stable keys (the ``audit --json`` contract)."""
        return {
            "file": self.file,
            "format": self.format,
            "signature": self.signature,
            "table1": self.table1,
            "domains": self.domains,
            "sparse_threshold": self.sparse_threshold,
            "sparse_domains": self.sparse_domains,
            "polarities": self.polarities,
            "defect_counts": self.defect_counts,
            "defects": [d.to_dict() for d in self.defects],
            "script_inconsistencies": self.script_inconsistencies,
            "spelling_variants": self.spelling_variants,
            "notes": self.notes,
        }


# ---------------------------------------------------------------- reading


def domain_of(sentence_id: str, default: str = NO_DOMAIN) -> str:
    """Akhtar 2016 encodes the product domain as an id prefix (``lap_17`` → ``lap``)."""
    m = _DOMAIN_PREFIX.match(sentence_id)
    return m.group(1).lower() if m else default


def _offset(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class _SemEvalHandler(xml.sax.ContentHandler):
    """Collects sentences, texts and aspect terms with the line each starts on."""

    def __init__(self, default_domain: str):
        super().__init__()
        self.default_domain = default_domain
        self.sentences: list[AuditSentence] = []
        self._locator = None
        self._current: dict | None = None
        self._text_parts: list[str] | None = None

    def setDocumentLocator(self, locator):  # noqa: N802 - SAX API
        self._locator = locator

    def _line(self) -> int | None:
        return self._locator.getLineNumber() if self._locator else None

    def startElement(self, name, attrs):  # noqa: N802 - SAX API
        tag = name.rsplit(":", 1)[-1].lower()
        if tag == "sentence":
            sid = attrs.get("id")
            self._current = {"id": sid if sid is not None else f"#{len(self.sentences) + 1}",
                             "line": self._line(), "text": None, "aspects": []}
        elif self._current is None:
            return
        elif tag == "text":
            self._text_parts = []
        elif tag == "aspectterm":
            raw_from, raw_to = attrs.get("from"), attrs.get("to")
            self._current["aspects"].append(AuditAspect(
                term=attrs.get("term"), start=_offset(raw_from), end=_offset(raw_to),
                polarity=attrs.get("polarity"), line=self._line(), raw_from=raw_from, raw_to=raw_to))

    def characters(self, content):
        if self._text_parts is not None:
            self._text_parts.append(content)

    def endElement(self, name):  # noqa: N802 - SAX API
        tag = name.rsplit(":", 1)[-1].lower()
        if tag == "text" and self._current is not None and self._text_parts is not None:
            self._current["text"] = "".join(self._text_parts)
            self._text_parts = None
        elif tag == "sentence" and self._current is not None:
            c = self._current
            self.sentences.append(AuditSentence(
                id=c["id"], domain=domain_of(c["id"], self.default_domain), text=c["text"],
                aspects=tuple(c["aspects"]), line=c["line"]))
            self._current = None


def read_semeval_xml(data: bytes, filename: str, default_domain: str = NO_DOMAIN) -> list[AuditSentence]:
    """Sentences of a SemEval-style XML file; external entities and DTDs are refused, never resolved."""
    handler = _SemEvalHandler(default_domain)
    parser = make_parser()
    parser.setContentHandler(handler)
    source = xml.sax.xmlreader.InputSource(filename)
    source.setByteStream(io.BytesIO(data))
    try:
        parser.parse(source)
    except xml.sax.SAXParseException as exc:
        raise AuditInputError(LocatedError(filename, f"not well-formed XML: {exc.getMessage()}",
                                           line=exc.getLineNumber())) from exc
    except DefusedXmlException as exc:
        raise AuditInputError(LocatedError(
            filename, f"refused: the file declares DTDs or entities ({type(exc).__name__})",
            line=handler._line())) from exc
    return handler.sentences


def _bio_tag(tag: str) -> str:
    """``B-ASP`` → ``B``; anything else is kept for validate_tags to report."""
    head = tag.split("-", 1)[0].upper() if tag else tag
    return head if head in ("B", "I", "O") and (len(tag) == 1 or tag[1] == "-") else tag


def read_conll(data: bytes, filename: str, default_domain: str = NO_DOMAIN
               ) -> tuple[list[AuditSentence], list[Defect]]:
    """Sentences of a CoNLL BIO file (token<TAB>tag, blank line between sentences, ``# id = ...``)."""
    text = data.decode("utf-8-sig")
    sentences: list[AuditSentence] = []
    defects: list[Defect] = []
    tokens: list[str] = []
    tags: list[str] = []
    lines: list[int] = []
    sid: str | None = None
    start_line: int | None = None
    pending: list[tuple[int, str]] = []

    def flush() -> None:
        nonlocal tokens, tags, lines, sid, start_line, pending
        if tokens or sid is not None:
            ident = sid if sid is not None else f"#{len(sentences) + 1}"
            sentences.append(AuditSentence(
                id=ident, domain=domain_of(ident, default_domain), text=" ".join(tokens),
                line=start_line, tokens=tuple(tokens), tags=tuple(tags), token_lines=tuple(lines)))
            defects.extend(Defect("malformed-line", ident, ln, None, msg) for ln, msg in pending)
        tokens, tags, lines, sid, start_line, pending = [], [], [], None, None, []

    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if stripped.startswith("#"):
            m = regex.match(r"#\s*(?:sent_)?id\s*[=:]\s*(.*)$", stripped)
            if m:
                if tokens:
                    flush()
                sid = m.group(1).strip()
                start_line = start_line or number
            continue
        start_line = start_line or number
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [f for f in fields if f.strip()]
        if len(fields) < 2:
            pending.append((number, f"expected token<TAB>tag, got {line!r}"))
            continue
        tokens.append(fields[0].strip())
        tags.append(_bio_tag(fields[-1].strip()))
        lines.append(number)
    flush()
    return sentences, defects


def detect_format(data: bytes, filename: str = "") -> str:
    """By extension (.xml; .conll/.bio/.tsv/.txt), else ``semeval-xml`` if the file starts like XML."""
    suffix = Path(filename).suffix.lower()
    if suffix == ".xml":
        return "semeval-xml"
    if suffix in (".conll", ".bio", ".tsv", ".txt"):
        return "conll"
    head = data[:200].lstrip(b"\xef\xbb\xbf \t\r\n")
    return "semeval-xml" if head.startswith(b"<") else "conll"


# ---------------------------------------------------------------- span defects


def _is_word_char(c: str) -> bool:
    return _WORD_CHAR.match(c) is not None


def _zero_width_names(term: str) -> list[str]:
    return sorted({_ZERO_WIDTH_NAMES[c] for c in ZERO_WIDTH.findall(term)})


def span_defects(sentence: AuditSentence) -> list[Defect]:
    """Every span defect of one sentence's XML aspects (see DEFECT_KINDS)."""
    out: list[Defect] = []
    text = sentence.text
    sid = sentence.id

    def add(kind: str, aspect: AuditAspect, detail: str) -> None:
        out.append(Defect(kind, sid, aspect.line, aspect.term, detail))

    valid: list[tuple[int, int, AuditAspect]] = []
    for a in sentence.aspects:
        if a.term and ZERO_WIDTH.search(a.term):
            add("zero-width-in-term", a, "term contains " + ", ".join(_zero_width_names(a.term)))
        if text is None:
            continue
        s, e = a.start, a.end
        if s is None or e is None:
            add("bad-offsets", a, f"from={a.raw_from!r} to={a.raw_to!r} are not integers")
            continue
        if not 0 <= s < e <= len(text):
            add("bad-offsets", a, f"from={s} to={e} outside 0..{len(text)} or empty")
            continue
        valid.append((s, e, a))
        piece = text[s:e]
        whitespace = False
        if piece[-1].isspace():
            whitespace = True
            add("trailing-whitespace", a, f"span [{s}:{e}] ends with {piece[-1]!r}")
        if piece[0].isspace():
            whitespace = True
            add("leading-whitespace", a, f"span [{s}:{e}] starts with {piece[0]!r}")
        if s > 0 and _is_word_char(text[s - 1]) and _is_word_char(text[s]):
            add("starts-inside-word", a, f"span [{s}:{e}] starts inside {_word_at(text, s)!r}")
        if e < len(text) and _is_word_char(text[e - 1]) and _is_word_char(text[e]):
            add("ends-inside-word", a, f"span [{s}:{e}] ends inside {_word_at(text, e - 1)!r}")
        term = a.term if a.term is not None else ""
        if piece != term and not (whitespace and piece.strip() == term):
            how = " (differs only in Unicode normalization)" if normalize(piece) == normalize(term) else ""
            add("offset-mismatch", a, f"text[{s}:{e}] is {piece!r}, term is {term!r}{how}")

    seen: dict[tuple[int, int], AuditAspect] = {}
    for s, e, a in valid:
        if (s, e) in seen:
            add("duplicated-span", a, f"span [{s}:{e}] {text[s:e]!r} listed again")
        else:
            seen[(s, e)] = a
    distinct = sorted(seen)
    for i, (s1, e1) in enumerate(distinct):
        for s2, e2 in distinct[i + 1:]:
            if s2 >= e1:
                break
            add("overlapping-spans", seen[(s2, e2)],
                f"span [{s2}:{e2}] {text[s2:e2]!r} overlaps [{s1}:{e1}] {text[s1:e1]!r}")
    return out


def _word_at(text: str, i: int) -> str:
    start, end = i, i + 1
    while start > 0 and _is_word_char(text[start - 1]):
        start -= 1
    while end < len(text) and _is_word_char(text[end]):
        end += 1
    return text[start:end]


def conll_defects(sentence: AuditSentence) -> list[Defect]:
    """Invalid BIO sequences and zero-width characters inside aspect tokens of a CoNLL sentence."""
    out: list[Defect] = []
    tokens, tags = sentence.tokens or (), sentence.tags or ()
    lines = sentence.token_lines or ()
    for p in validate_tags(tags):
        line = lines[p.position] if p.position < len(lines) else sentence.line
        out.append(Defect("invalid-bio", sentence.id, line, tokens[p.position], str(p)))
    for term in conll_terms(sentence):
        if ZERO_WIDTH.search(term):
            out.append(Defect("zero-width-in-term", sentence.id, sentence.line, term,
                              "term contains " + ", ".join(_zero_width_names(term))))
    return out


def conll_terms(sentence: AuditSentence) -> list[str]:
    """Aspect terms of a CoNLL sentence, read after the conventional repair (stray I starts a span)."""
    tokens, tags = sentence.tokens or (), sentence.tags or ()
    repaired, _ = repair_tags([t if t in ("B", "I", "O") else "O" for t in tags])
    terms, current = [], []
    for token, tag in zip(tokens, repaired):
        if tag != "I" and current:
            terms.append(" ".join(current))
            current = []
        if tag in ("B", "I"):
            current.append(token)
    if current:
        terms.append(" ".join(current))
    return terms


def sentence_terms(sentence: AuditSentence) -> list[str]:
    if sentence.tokens is not None:
        return conll_terms(sentence)
    return [a.term for a in sentence.aspects if a.term]


# ---------------------------------------------------------------- Table 1, domains


def _tags_of(sentence: AuditSentence) -> list[str]:
    """B/I/O over canonical tokens (XML), or the file's own tags after the repair that
    conll_terms reads terms with (CoNLL; unknown tags count as O), so B% matches the term count."""
    if sentence.tags is not None:
        return repair_tags([t if t in ("B", "I", "O") else "O" for t in sentence.tags])[0]
    text = sentence.text or ""
    nfc = normalize(text)
    tokens = tokenize_with_offsets(nfc)
    spans = []
    for a in sentence.aspects:
        if a.start is None or a.end is None or not 0 <= a.start < a.end <= len(text):
            continue
        s, e = a.start, a.end
        if nfc != text:
            s, e = len(normalize(text[:s])), len(normalize(text[:e]))
        spans.append((s, e))
    return char_spans_to_tags(tokens, spans) if tokens else []


def _aspect_count(sentence: AuditSentence) -> int:
    return len(conll_terms(sentence)) if sentence.tokens is not None else len(sentence.aspects)


def labelled(sentence: AuditSentence) -> LabelledSentence:
    """The audited sentence in the shape corpus.stats counts, so Table 1 means the same everywhere."""
    return LabelledSentence(sentence.domain, tuple(_tags_of(sentence)), _aspect_count(sentence))


def table1(sentences: Sequence[AuditSentence]) -> dict:
    """The seed paper's Table 1 for one file (corpus.stats' definitions and keys)."""
    return stats_table1(labelled(s) for s in sentences)


def domain_sparsity(sentences: Sequence[AuditSentence],
                    threshold: int = SPARSE_DOMAIN_SENTENCES) -> list[dict]:
    """Sentences and aspects per domain; domains under ``threshold`` sentences are flagged sparse."""
    rows: dict[str, dict] = {}
    for s in sentences:
        row = rows.setdefault(s.domain, {"domain": s.domain, "sentences": 0, "aspect_terms": 0,
                                         "sentences_with_aspects": 0})
        k = _aspect_count(s)
        row["sentences"] += 1
        row["aspect_terms"] += k
        row["sentences_with_aspects"] += 1 if k else 0
    out = sorted(rows.values(), key=lambda r: r["domain"])
    for row in out:
        row["sparse"] = row["sentences"] < threshold
    return out


def polarity_counts(sentences: Sequence[AuditSentence]) -> tuple[dict[str, int], list[Defect]]:
    counts: Counter[str] = Counter()
    defects = []
    for s in sentences:
        for a in s.aspects:
            if a.polarity is None:
                counts["(missing)"] += 1
                continue
            canon = POLARITY_ALIASES.get(a.polarity.strip().lower())
            if canon is None:
                counts["(unknown)"] += 1
                defects.append(Defect("unknown-polarity", s.id, a.line, a.term,
                                      f"polarity {a.polarity!r} is none of positive/negative/neutral/"
                                      "conflict or pos/neg/neu/con"))
            else:
                counts[canon] += 1
    return dict(sorted(counts.items())), defects


# ---------------------------------------------------------------- script consistency


def _clean_term(term: str) -> str:
    return " ".join(ZERO_WIDTH.sub("", normalize(term)).split())


_BLOCK = str.maketrans({"g": "k", "q": "k", "c": "s", "j": "s", "z": "s", "d": "t", "b": "p",
                        "f": "p", "v": "p", "w": "p", "m": "n", "l": "r"})


def _block_key(term: str) -> str:
    """A coarse key that every possible match shares, so pairs are compared only within a block:
    the exact key for words too short to match fuzzily, else the initial sound class and the
    consonant skeleton with similar sounds merged (a full consonant insertion almost never stays
    under the threshold, so forms with different consonant counts are not compared)."""
    keys = []
    for word in term.split():
        key = phonetic_key(word)
        if len(key) < MIN_FUZZY_LENGTH:
            keys.append("=" + key)
            continue
        skeleton = regex.sub(r"[aeiouyh]", "", key).translate(_BLOCK)
        initial = "V" if key[0] in "aeiou" else ""
        keys.append(initial + skeleton)
    return " ".join(keys)


def _same_term(a: str, b: str) -> bool:
    wa, wb = a.split(), b.split()
    return len(wa) == len(wb) and all(words_match(x, y) for x, y in zip(wa, wb))


def term_variant_groups(occurrences: Iterable[tuple[str, str]]) -> list[list[tuple[str, list[str]]]]:
    """Groups of differently written forms of one term: ``[(form, [sentence ids]), ...]`` per group.

    ``occurrences`` are (term, sentence id). Forms are compared word by word with the phonetic
    match; a group is the connected set of forms that match one another.
    """
    where: dict[str, list[str]] = defaultdict(list)
    for term, sid in occurrences:
        form = _clean_term(term)
        if form and (not where[form] or where[form][-1] != sid):
            where[form].append(sid)
    blocks: dict[str, list[str]] = defaultdict(list)
    for form in where:
        if script_of(form) in ("roman", "devanagari", "mixed"):
            blocks[_block_key(form.casefold())].append(form)
    groups = []
    for forms in blocks.values():
        if len(forms) < 2:
            continue
        parent = list(range(len(forms)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i in range(len(forms)):
            for j in range(i + 1, len(forms)):
                if find(i) != find(j) and _same_term(forms[i].casefold(), forms[j].casefold()):
                    parent[find(j)] = find(i)
        members: dict[int, list[str]] = defaultdict(list)
        for i, form in enumerate(forms):
            members[find(i)].append(form)
        for group in members.values():
            if len(group) > 1:
                groups.append([(f, where[f]) for f in sorted(group, key=lambda f: (-len(where[f]), f))])
    groups.sort(key=lambda g: (-sum(len(ids) for _, ids in g), g[0][0]))
    return groups


def _group_row(group: list[tuple[str, list[str]]]) -> dict:
    return {
        "key": phonetic_key(group[0][0].replace(" ", "")),
        "forms": [{"term": form, "script": script_of(form), "occurrences": len(ids), "sentence_ids": ids}
                  for form, ids in group],
    }


def script_findings(sentences: Sequence[AuditSentence]) -> tuple[list[dict], list[dict]]:
    """(script inconsistencies, same-script spelling variants) among the file's aspect terms."""
    occurrences = [(term, s.id) for s in sentences for term in sentence_terms(s)]
    inconsistent, variants = [], []
    for group in term_variant_groups(occurrences):
        scripts = {script_of(form) for form, _ in group}
        (inconsistent if len(scripts) > 1 else variants).append(_group_row(group))
    return inconsistent, variants


# ---------------------------------------------------------------- the audit


def audit_sentences(sentences: Sequence[AuditSentence], filename: str, fmt: str,
                    read_defects: Sequence[Defect] = (),
                    sparse_threshold: int = SPARSE_DOMAIN_SENTENCES) -> AuditReport:
    defects: list[Defect] = list(read_defects)
    seen_ids: dict[str, int | None] = {}
    for s in sentences:
        if s.id in seen_ids:
            defects.append(Defect("duplicate-sentence-id", s.id, s.line, None,
                                  f"id also used by the sentence at line {seen_ids[s.id]}"))
        else:
            seen_ids[s.id] = s.line
        if s.tokens is not None:
            defects.extend(conll_defects(s))
            continue
        if s.text is None:
            defects.append(Defect("missing-text", s.id, s.line, None, "sentence has no <text>"))
        defects.extend(span_defects(s))
    polarities, polarity_defects = polarity_counts(sentences)
    defects.extend(polarity_defects)
    order = {k: i for i, k in enumerate(DEFECT_KINDS)}
    defects.sort(key=lambda d: (order[d.kind], d.line if d.line is not None else -1))
    inconsistent, variants = script_findings(sentences)
    notes = []
    if fmt == "conll":
        notes.append("CoNLL: aspect terms are read from the tags after the conventional repair "
                     "(a stray I starts a span); character-offset defects do not apply.")
    return AuditReport(
        file=filename, format=fmt, table1=table1(sentences),
        domains=domain_sparsity(sentences, sparse_threshold), polarities=polarities,
        defects=defects, script_inconsistencies=inconsistent, spelling_variants=variants,
        sparse_threshold=sparse_threshold, notes=notes)


def audit_bytes(data: bytes, filename: str, fmt: str | None = None,
                default_domain: str = NO_DOMAIN,
                sparse_threshold: int = SPARSE_DOMAIN_SENTENCES) -> AuditReport:
    """Audit file contents (the page's upload); raises AuditInputError if they cannot be read."""
    fmt = fmt or detect_format(data, filename)
    if fmt == "semeval-xml":
        return audit_sentences(read_semeval_xml(data, filename, default_domain), filename, fmt,
                               sparse_threshold=sparse_threshold)
    if fmt == "conll":
        try:
            sentences, read_defects = read_conll(data, filename, default_domain)
        except UnicodeDecodeError as exc:
            line = data[:exc.start].count(b"\n") + 1
            raise AuditInputError(LocatedError(filename, f"not UTF-8: {exc.reason}", line=line)) from exc
        return audit_sentences(sentences, filename, fmt, read_defects, sparse_threshold)
    raise ValueError(f"audit: unknown format {fmt!r} (expected 'semeval-xml' or 'conll')")


def audit_file(path: str | Path, fmt: str | None = None, default_domain: str = NO_DOMAIN,
               sparse_threshold: int = SPARSE_DOMAIN_SENTENCES) -> AuditReport:
    """Audit a file on disk; it is only ever opened for reading."""
    with open(path, "rb") as fh:
        data = fh.read()
    return audit_bytes(data, str(path), fmt, default_domain, sparse_threshold)



def read_sentences(data: bytes, filename: str, fmt: str | None = None,
                   default_domain: str = NO_DOMAIN) -> list[AuditSentence]:
    """The file's sentences as the audit reads them (for ``audit --baseline``)."""
    fmt = fmt or detect_format(data, filename)
    if fmt == "semeval-xml":
        return read_semeval_xml(data, filename, default_domain)
    if fmt == "conll":
        return read_conll(data, filename, default_domain)[0]
    raise ValueError(f"audit: unknown format {fmt!r} (expected 'semeval-xml' or 'conll')")


def tokens_and_tags(sentence: AuditSentence) -> tuple[list[str], list[str]]:
    """Canonical tokens and BIO from offsets (XML), or the file's own tokens and repaired tags (CoNLL):
    the same tags Table 1 counts."""
    tags = _tags_of(sentence)
    if sentence.tokens is not None:
        return list(sentence.tokens), tags
    return [t.text for t in tokenize_with_offsets(normalize(sentence.text or ""))], tags


# ---------------------------------------------------------------- text report


AUDITED_COLUMN = "Audited file"
OUR_COLUMNS = {"english": "Our corpus: English (source)", "hindi": "Our corpus: Hindi (final, gold)"}


def table1_columns(report: AuditReport, ours: dict | None = None) -> dict[str, dict]:
    """Table 1 columns, the audited file beside our corpus (``corpus.stats.corpus_statistics``) when given:
    the page and ``python -m corpus audit`` show the same comparison."""
    columns = {AUDITED_COLUMN: report.table1}
    if ours is not None:
        columns.update({label: ours[side] for side, label in OUR_COLUMNS.items()})
    return columns


def format_report(report: AuditReport, max_defects: int = 50, ours: dict | None = None,
                  ours_note: str | None = None) -> str:
    """The report as plain text for the command line; Table 1 beside our corpus when ``ours`` is given,
    else ``ours_note`` says why it is not."""
    columns = table1_columns(report, ours)
    rows = table1_rows(columns)
    width = max(len(r["statistic"]) for r in rows) + 2
    widths = {name: max(len(name), *(len(r[name]) for r in rows)) for name in columns}
    lines = [f"audit of {report.file} ({report.format}; {report.signature})", "", "Table 1"]
    lines.append(f"  {'':<{width}} " + "  ".join(f"{name:>{widths[name]}}" for name in columns))
    lines += [f"  {r['statistic']:<{width}} " + "  ".join(f"{r[name]:>{widths[name]}}" for name in columns)
              for r in rows]
    if ours is None and ours_note:
        lines.append(f"  ({ours_note})")
    lines += ["", f"Domains (sparse: fewer than {report.sparse_threshold} sentences)"]
    for d in report.domains:
        flag = "  SPARSE" if d["sparse"] else ""
        lines.append(f"  {d['domain']:<12} {d['sentences']:>6} sentences {d['aspect_terms']:>6} aspects{flag}")
    if report.polarities:
        lines += ["", "Polarities: " + ", ".join(f"{k} {v}" for k, v in report.polarities.items())]
    lines += ["", "Defects by kind"]
    lines += [f"  {k:<24} {v}" for k, v in report.defect_counts.items()]
    if report.defects:
        lines += ["", f"Defects (first {min(max_defects, len(report.defects))} of {len(report.defects)})"]
        for d in report.defects[:max_defects]:
            where = f"line {d.line}, " if d.line is not None else ""
            lines.append(f"  {d.kind}: {where}sentence {d.sentence_id}: {d.detail}")
    lines += ["", f"Script inconsistencies: {len(report.script_inconsistencies)}"]
    for g in report.script_inconsistencies:
        forms = "; ".join(f"{f['term']} ({f['script']}, {f['occurrences']}: {', '.join(f['sentence_ids'][:5])}"
                          f"{' ...' if len(f['sentence_ids']) > 5 else ''})" for f in g["forms"])
        lines.append(f"  {forms}")
    if report.spelling_variants:
        lines += ["", f"Same-script spelling variants: {len(report.spelling_variants)}"]
        for g in report.spelling_variants:
            lines.append("  " + " / ".join(f"{f['term']} ({f['occurrences']})" for f in g["forms"]))
    for note in report.notes:
        lines += ["", f"Note: {note}"]
    return "\n".join(lines)
