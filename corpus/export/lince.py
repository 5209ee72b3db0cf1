"""``lince``: CoNLL with a language-ID column, ``token<TAB>lid<TAB>tag``, as LinCE ships code-mixed data.

LID labels: ``lang1`` English/Roman, ``lang2`` Hindi/Devanagari, ``ne`` Roman proper nouns (rule 1, by
``corpus.codemix.named_entities``, as on the dashboard), ``other`` punctuation, digits and symbols.
"""

from __future__ import annotations

from corpus.export.options import FormatOptions, columns_block, render_split_files, styled_tags
from corpus.export.records import ExportDataset


def format_lince(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(
        dataset, "lince", "conll", options,
        lambda r: columns_block((r.hi_tokens, r.lid, styled_tags(r.hi_tags, options.tag_style))), sent_enum=True,
    )
