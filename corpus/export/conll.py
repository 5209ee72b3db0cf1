"""``conll``: Hindi ``token<TAB>tag``, one token per line, a blank line between sentences."""

from __future__ import annotations

from corpus.export.options import FormatOptions, columns_block, render_split_files, styled_tags
from corpus.export.records import ExportDataset


def format_conll(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(
        dataset, "conll", "conll", options,
        lambda r: columns_block((r.hi_tokens, styled_tags(r.hi_tags, options.tag_style))),
    )
