"""Formatter options and the file layout every per-split format shares."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from corpus.export.records import ExportDataset, ExportSentence

LAYOUTS = ("both", "combined", "per-domain")
SPLIT_ORDER = ("train", "dev", "test")
#: ``plain``: the contract's one-type BIO (``B``, ``I``, ``O``); ``typed``: ``B-ASP``, ``I-ASP``, ``O``, the
#: CoNLL-2003 form that spaCy's ``convert -c ner`` and other NER tools require (they refuse a bare ``B``).
TAG_STYLES = ("plain", "typed")
ASPECT_TYPE = "ASP"


@dataclass(frozen=True)
class FormatOptions:
    id_comments: bool = False
    layout: str = "both"
    tag_style: str = "plain"

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}")
        if self.tag_style not in TAG_STYLES:
            raise ValueError(f"tag style must be one of {', '.join(TAG_STYLES)}, got {self.tag_style!r}")


_TYPED = {"B": f"B-{ASPECT_TYPE}", "I": f"I-{ASPECT_TYPE}", "O": "O"}


def styled_tags(tags: Sequence[str], style: str) -> Sequence[str]:
    """The CoNLL files' tag column: the stored plain BIO, or typed (``B-ASP``/``I-ASP``/``O``)."""
    return tags if style == "plain" else [_TYPED[t] for t in tags]


def split_files(
    dataset: ExportDataset, fmt: str, ext: str, options: FormatOptions
) -> Iterator[tuple[str, list[ExportSentence]]]:
    """(path, records) per split, combined (``fmt/split.ext``) and/or per domain (``fmt/domain/split.ext``)."""
    by_split: dict[str, list[ExportSentence]] = {}
    by_domain: dict[tuple[str, str], list[ExportSentence]] = {}
    for r in dataset.sentences:  # one pass, each group in the dataset's order
        by_split.setdefault(r.split, []).append(r)
        by_domain.setdefault((r.domain, r.split), []).append(r)
    splits = [s for s in SPLIT_ORDER if s in by_split]
    splits += sorted(set(by_split) - set(splits))
    if options.layout in ("both", "combined"):
        for split in splits:
            yield f"{fmt}/{split}.{ext}", by_split[split]
    if options.layout in ("both", "per-domain"):
        for domain in dataset.domains():
            for split in splits:
                recs = by_domain.get((domain, split))
                if recs:
                    yield f"{fmt}/{domain}/{split}.{ext}", recs


def render_split_files(
    dataset: ExportDataset, fmt: str, ext: str, options: FormatOptions, render: Callable[[ExportSentence], str],
    header: str = "", sent_enum: bool = False,
) -> dict[str, str]:
    """Every split file of a format; each record is rendered once even when it appears in two layouts.

    With ``options.id_comments`` each file gets a side file of sentence ids (``ids_file``); ``sent_enum``
    also numbers the sentences in the file with LinCE's ``# sent_enum = N`` lines, which LinCE's loaders
    skip (a CoNLL reader such as NLTK's skips no comment line, so ids never go inside a plain CoNLL file)."""
    cache: dict[int, str] = {}

    def text(r: ExportSentence) -> str:
        key = id(r)
        if key not in cache:
            cache[key] = render(r)
        return cache[key]

    files: dict[str, str] = {}
    for path, recs in split_files(dataset, fmt, ext, options):
        if options.id_comments and sent_enum:
            files[path] = header + "".join(f"# sent_enum = {n}\n{text(r)}" for n, r in enumerate(recs, 1))
        else:
            files[path] = header + "".join(text(r) for r in recs)
        if options.id_comments:
            files[ids_path(path)] = ids_file(recs)
    return files


def ids_path(path: str) -> str:
    """The side file of a data file's sentence ids: ``conll/train.conll`` -> ``conll/train.ids.tsv``."""
    stem, dot, _ext = path.rpartition(".")
    return f"{stem if dot else path}.ids.tsv"


def ids_file(records: Sequence[ExportSentence]) -> str:
    """``sentence<TAB>id``: the 1-based position of each sentence in its data file (LinCE's ``sent_enum``)
    and its id (``domain/split/sentence id``, with ``/phase/translator`` in an every-translation export)."""
    return "sentence\tid\n" + "".join(f"{n}\t{r.uid}\n" for n, r in enumerate(records, 1))


def columns_block(columns: Sequence[Sequence[str]]) -> str:
    """One CoNLL sentence: one tab-separated line per token, then a blank line."""
    return "\n".join(map("\t".join, zip(*columns))) + "\n\n"
