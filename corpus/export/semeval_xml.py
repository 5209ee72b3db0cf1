"""``semeval-xml``: the Hindi side in SemEval-2014 Task 4 XML, one file per domain and split.

``<aspectTerm term polarity from to/>`` with offsets into the Hindi ``<text>``. Every term carries a
``polarity`` attribute, so readers that index ``attrib['polarity']`` read every file: the SemEval-2014
label (positive, negative, neutral, conflict) of the English aspect an aspect map links the span to,
else ``UNLINKED_POLARITY`` (empty: unknown), never a label the data does not give; the card counts
them. A sentence without aspects has no ``<aspectTerms>``; sentence-level ``<aspectCategories>`` are
copied from the source. Written with ElementTree, so text is escaped; tabs and line breaks inside a
text are already spaces (``records.one_line``), so an XML reader's line-end handling moves no offset.
"""

from __future__ import annotations

import re
from collections import defaultdict

from corpus.export.options import SPLIT_ORDER, FormatOptions
from corpus.export.records import ExportDataset, ExportSentence

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: The ``polarity`` of a Hindi aspect term that no aspect map links to an English aspect.
UNLINKED_POLARITY = ""


def unlinked_terms(records: list[ExportSentence]) -> tuple[int, int]:
    """(terms written with ``UNLINKED_POLARITY``, all Hindi aspect terms) of the records."""
    terms = [a for r in records for a in r.hi_aspects]
    return sum(1 for a in terms if not a.polarity), len(terms)


def sentence_id(r: ExportSentence) -> str:
    return r.sentence_id if r.is_final else f"{r.sentence_id}/{r.phase}/{r.translator}"


def _cdata(text: str) -> str:
    """Character data escaped as ElementTree escapes it (``&``, ``<``, ``>``)."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


_ATTRIB_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"),
                   ("\t", "&#09;"))


def _attrib(value: str) -> str:
    """An attribute value escaped as ElementTree escapes it."""
    for char, entity in _ATTRIB_ESCAPES:
        if char in value:
            value = value.replace(char, entity)
    return value


def sentence_xml(r: ExportSentence) -> str:
    """One ``<sentence>`` as ``ET.tostring`` writes it inside the indented ``<sentences>`` (four spaces a
    level), without the indentation before it: the text, the aspect terms (attributes ``term``, ``polarity``,
    ``from``, ``to``) and the categories."""
    if _NOT_XML.search(r.hi_text):
        raise ValueError(f"semeval-xml: sentence {r.uid}: text holds a character XML 1.0 cannot carry")
    parts = [f'<sentence id="{_attrib(sentence_id(r))}">\n        ',
             f"<text>{_cdata(r.hi_text)}</text>" if r.hi_text else "<text />"]
    if r.hi_aspects:
        parts.append("\n        <aspectTerms>")
        parts += [f'\n            <aspectTerm term="{_attrib(a.term)}" polarity="{_attrib(a.polarity or UNLINKED_POLARITY)}"'
                  f' from="{a.start}" to="{a.end}" />' for a in r.hi_aspects]
        parts.append("\n        </aspectTerms>")
    if r.categories:
        parts.append("\n        <aspectCategories>")
        parts += [f'\n            <aspectCategory category="{_attrib(category)}"'
                  + (f' polarity="{_attrib(polarity)}" />' if polarity else " />") for category, polarity in r.categories]
        parts.append("\n        </aspectCategories>")
    parts.append("\n    </sentence>")
    return "".join(parts)


def to_xml(records: list[ExportSentence]) -> str:
    """The SemEval-2014 XML of ``records``, as ElementTree writes it indented by four spaces (written as text:
    the same characters, without a tree of elements)."""
    body = "\n    ".join(map(sentence_xml, records))
    root = f"<sentences>\n    {body}\n</sentences>" if records else "<sentences />"
    return '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + root + "\n"


def format_semeval_xml(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    groups: dict[tuple[str, str], list[ExportSentence]] = defaultdict(list)
    for r in dataset.sentences:
        groups[(r.domain, r.split)].append(r)
    order = {s: i for i, s in enumerate(SPLIT_ORDER)}
    return {
        f"semeval-xml/{domain}/{split}.xml": to_xml(recs)
        for (domain, split), recs in sorted(groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 9), kv[0][1]))
    }
