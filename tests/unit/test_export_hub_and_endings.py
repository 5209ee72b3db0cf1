"""The export's Hugging Face configs (``corpus.export.hub``) and the danda report (``corpus.export.endings``)."""

from __future__ import annotations

import pytest

from corpus.export.endings import DANDA, endings_report, final_mark
from corpus.export.hub import card_body, data_files, folder_readmes, with_card_header


@pytest.mark.parametrize("text,mark", [
    ("खाना अच्छा था।", DANDA),
    ("खाना अच्छा था.", "."),
    ("क्या खाना अच्छा था?", "?"),
    ('उसने कहा "खाना अच्छा था।"', DANDA),  # a closing quote after the danda does not hide it
    ("खाना अच्छा था। ) ", DANDA),
    ("खाना अच्छा था|", "|"),
    ("खाना", "ा"),
    ("   ", ""),
])
def test_the_final_mark_skips_space_closing_quotes_and_brackets(text, mark):
    assert final_mark(text) == mark


def test_the_endings_report_lists_every_sentence_that_ends_otherwise_by_mark():
    report = endings_report([("a", "था।"), ("b", "था."), ("c", "है?"), ("d", "था."), ("e", "है।")])
    assert (report.sentences, report.with_danda, report.ending_otherwise) == (5, 2, 3)
    assert report.otherwise == {".": ["b", "d"], "?": ["c"]}


BOTH = ["jsonl/train.jsonl", "jsonl/test.jsonl", "jsonl/laptop/train.jsonl", "jsonl/laptop/test.jsonl",
        "jsonl/restaurant/train.jsonl", "conll/train.conll", "conll/train.ids.tsv", "conll/laptop/train.conll",
        "conll/laptop/train.ids.tsv", "left_out.tsv", "README.md"]


def test_configs_name_each_split_once_and_never_a_side_file():
    assert data_files(BOTH, "jsonl") == {
        "all": {"train": ["jsonl/train.jsonl"], "test": ["jsonl/test.jsonl"]},
        "laptop": {"train": ["jsonl/laptop/train.jsonl"], "test": ["jsonl/laptop/test.jsonl"]},
        "restaurant": {"train": ["jsonl/restaurant/train.jsonl"]},
    }
    assert data_files(BOTH, "conll") == {"all": {"train": ["conll/train.conll"]},
                                         "laptop": {"train": ["conll/laptop/train.conll"]}}
    assert data_files(BOTH, "tsv") == {}


def test_a_per_domain_layout_gets_an_all_config_of_every_domains_files():
    per_domain = ["tsv/laptop/train.tsv", "tsv/restaurant/train.tsv", "tsv/restaurant/test.tsv"]
    assert data_files(per_domain, "tsv")["all"] == {"train": ["tsv/laptop/train.tsv", "tsv/restaurant/train.tsv"],
                                                    "test": ["tsv/restaurant/test.tsv"]}


def test_folder_readmes_use_paths_inside_the_folder_and_the_card_header_is_replaced_not_stacked():
    readmes = folder_readmes(BOTH)
    assert set(readmes) == {"jsonl/README.md", "conll/README.md"}
    assert '    - "laptop/train.jsonl"' in readmes["jsonl/README.md"]
    assert "ids.tsv" not in readmes["conll/README.md"].split("---")[1]
    card = with_card_header("# Title\n\nbody\n", BOTH)
    assert card.startswith("---\n") and '    - "jsonl/train.jsonl"' in card
    again = with_card_header(card, ["conll/train.conll"])
    assert again.count("configs:") == 1 and '"conll/train.conll"' in again and "jsonl/" not in again
    assert card_body(again) == "# Title\n\nbody\n"
