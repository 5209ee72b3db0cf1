"""``conll-en``: the English side, tokens and BIO from the SemEval offsets (same tokenizer), parallel by sentence
with ``conll``: the same files hold the same sentences in the same order."""

from __future__ import annotations

from corpus.export.options import FormatOptions, columns_block, render_split_files, styled_tags
from corpus.export.records import ExportDataset


def format_conll_en(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(
        dataset, "conll-en", "conll", options,
        lambda r: columns_block((r.en_tokens, styled_tags(r.en_tags, options.tag_style))),
    )
