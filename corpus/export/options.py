"""Formatter options and the file layout every per-split format shares."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from corpus.export.records import ExportDataset, ExportSentence

LAYOUTS = ("both", "combined", "per-domain")
SPLIT_ORDER = ("train", "dev", "test")


@dataclass(frozen=True)
class FormatOptions:
    id_comments: bool = False
    layout: str = "both"

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}")


def split_files(
    dataset: ExportDataset, fmt: str, ext: str, options: FormatOptions
) -> Iterator[tuple[str, list[ExportSentence]]]:
    """(path, records) per split, combined (``fmt/split.ext``) and/or per domain (``fmt/domain/split.ext``)."""
    splits = [s for s in SPLIT_ORDER if any(r.split == s for r in dataset.sentences)]
    splits += sorted({r.split for r in dataset.sentences} - set(splits))
    if options.layout in ("both", "combined"):
        for split in splits:
            yield f"{fmt}/{split}.{ext}", [r for r in dataset.sentences if r.split == split]
    if options.layout in ("both", "per-domain"):
        for domain in dataset.domains():
            for split in splits:
                recs = [r for r in dataset.sentences if r.split == split and r.domain == domain]
                if recs:
                    yield f"{fmt}/{domain}/{split}.{ext}", recs


def render_split_files(
    dataset: ExportDataset, fmt: str, ext: str, options: FormatOptions, render: Callable[[ExportSentence], str],
    header: str = "",
) -> dict[str, str]:
    """Every split file of a format; each record is rendered once even when it appears in two layouts."""
    cache: dict[int, str] = {}

    def text(r: ExportSentence) -> str:
        key = id(r)
        if key not in cache:
            cache[key] = render(r)
        return cache[key]

    return {path: header + "".join(text(r) for r in recs) for path, recs in split_files(dataset, fmt, ext, options)}


def columns_block(uid: str, columns: Sequence[Sequence[str]], id_comments: bool) -> str:
    """One CoNLL sentence: optional ``# id = …`` line, one tab-separated line per token, then a blank line."""
    lines = [f"# id = {uid}"] if id_comments else []
    lines.extend("\t".join(row) for row in zip(*columns))
    return "\n".join(lines) + "\n\n"
