"""Dataset export: plain records (``records``) -> one small formatter per format -> ``writer``.

``build_files`` is the whole pipeline after loading: it returns ``{relative path: text}`` for the
chosen formats plus ``README.md`` (the dataset card, with the Hugging Face ``configs:`` header of
``corpus.export.hub``), a ``README.md`` in each format folder ``datasets`` can load, ``left_out.tsv``
and, when the dataset carries the agreement figures, ``metrics.json``.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Sequence

from corpus.export.card import METRICS_FILE, dataset_card, source_card
from corpus.export.conll import format_conll
from corpus.export.conll_en import format_conll_en
from corpus.export.hub import folder_readmes, with_card_header
from corpus.export.jsonl import format_jsonl
from corpus.export.lince import format_lince
from corpus.export.options import FormatOptions
from corpus.export.records import ExportDataset
from corpus.export.semeval_xml import format_semeval_xml
from corpus.export.tsv import format_tsv

Formatter = Callable[[ExportDataset, FormatOptions], dict[str, str]]

FORMATS: dict[str, Formatter] = {
    "conll": format_conll,
    "conll-en": format_conll_en,
    "jsonl": format_jsonl,
    "semeval-xml": format_semeval_xml,
    "tsv": format_tsv,
    "lince": format_lince,
}

#: What a ``--source-only`` export (English side of every imported sentence) can write.
SOURCE_FORMATS = ("conll-en",)


def left_out_tsv(dataset: ExportDataset) -> str:
    rows = ["domain\tsplit\tsentence_id\ttranslation_id\treason\tdetail"]
    for item in dataset.left_out:
        detail = " ".join(item.detail.split())
        tid = "" if item.translation_id is None else str(item.translation_id)
        rows.append(f"{item.domain}\t{item.split}\t{item.sentence_id}\t{tid}\t{item.reason}\t{detail}")
    return "\n".join(rows) + "\n"


def metrics_json(report: dict) -> str:
    """The figures as ``python -m corpus metrics --json`` prints them (same keys, same JSON settings)."""
    return json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def build_files(
    dataset: ExportDataset, formats: Sequence[str] | None = None, options: FormatOptions | None = None
) -> dict[str, str]:
    """Every file of the export for ``formats`` (default: all), with the card and the left-out list."""
    options = options or FormatOptions()
    source_only = bool(dataset.meta.get("source_only"))
    known = SOURCE_FORMATS if source_only else tuple(FORMATS)
    chosen = list(known) if not formats else list(dict.fromkeys(formats))
    unknown = [f for f in chosen if f not in known]
    if unknown:
        what = "a source-only export writes" if source_only else "known"
        raise ValueError(f"unknown format(s) {', '.join(unknown)}; {what}: {', '.join(known)}")
    # The formatters allocate many short-lived containers and make no cycles: the cyclic collector's passes
    # over a large heap (the records, and the rows they were read from) would cost a third of the formatting.
    collecting = gc.isenabled()
    gc.disable()
    try:
        files: dict[str, str] = {}
        for name in chosen:
            files.update(FORMATS[name](dataset, options))
        files.update(folder_readmes(files))
        files["left_out.tsv"] = left_out_tsv(dataset)
        if dataset.meta.get("metrics"):
            files[METRICS_FILE] = metrics_json(dataset.meta["metrics"])
        card = (source_card if source_only else dataset_card)(dataset, sorted(files) + ["README.md"], options)
        return {"README.md": with_card_header(card, files), **files}
    finally:
        if collecting:
            gc.enable()


def files_by_format(files: dict[str, str]) -> dict[str, dict[str, str]]:
    """The export's files grouped by format (their top folder), each group with the card and left-out list."""
    shared = {k: v for k, v in files.items() if "/" not in k}
    groups: dict[str, dict[str, str]] = {}
    for path, text in files.items():
        if "/" in path:
            groups.setdefault(path.split("/", 1)[0], dict(shared))[path] = text
    for group in groups.values():  # each zip's card loads the format it holds
        if "README.md" in group:
            group["README.md"] = with_card_header(group["README.md"], group)
    return {name: groups[name] for name in FORMATS if name in groups}
