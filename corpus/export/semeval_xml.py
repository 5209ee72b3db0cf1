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
import xml.etree.ElementTree as ET
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


def sentence_element(r: ExportSentence) -> ET.Element:
    if _NOT_XML.search(r.hi_text):
        raise ValueError(f"semeval-xml: sentence {r.uid}: text holds a character XML 1.0 cannot carry")
    el = ET.Element("sentence", {"id": sentence_id(r)})
    ET.SubElement(el, "text").text = r.hi_text
    if r.hi_aspects:
        terms = ET.SubElement(el, "aspectTerms")
        for a in r.hi_aspects:
            attrs = {"term": a.term, "polarity": a.polarity or UNLINKED_POLARITY}
            attrs["from"] = str(a.start)
            attrs["to"] = str(a.end)
            ET.SubElement(terms, "aspectTerm", attrs)
    if r.categories:
        cats = ET.SubElement(el, "aspectCategories")
        for category, polarity in r.categories:
            attrs = {"category": category}
            if polarity:
                attrs["polarity"] = polarity
            ET.SubElement(cats, "aspectCategory", attrs)
    return el


def to_xml(records: list[ExportSentence]) -> str:
    root = ET.Element("sentences")
    for r in records:
        root.append(sentence_element(r))
    ET.indent(root, space="    ")
    return '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def format_semeval_xml(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    groups: dict[tuple[str, str], list[ExportSentence]] = defaultdict(list)
    for r in dataset.sentences:
        groups[(r.domain, r.split)].append(r)
    order = {s: i for i, s in enumerate(SPLIT_ORDER)}
    return {
        f"semeval-xml/{domain}/{split}.xml": to_xml(recs)
        for (domain, split), recs in sorted(groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 9), kv[0][1]))
    }
