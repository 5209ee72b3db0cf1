"""Hugging Face ``datasets`` configs: which files ``load_dataset(folder)`` and ``load_dataset(folder, name)`` read.

Without them the loader reads every data file under a folder: the combined and per-domain files together
(each row twice) and, with sentence ids, the ``.ids.tsv`` side files. A ``configs:`` block in a README's
YAML header names the files of each split exactly. The export's ``README.md`` (the card) carries one for
the JSONL files (``load_dataset(export)``), and each format folder a small ``README.md`` of its own, so
``load_dataset(export/jsonl)``, ``export/tsv``, ``export/conll`` and the rest load as they are. One README
serves one ``datasets`` builder (chosen from its files' extension), so the card names one format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from corpus.export.options import SPLIT_ORDER

#: Formats a ``datasets`` builder reads, with the builder's options (``.jsonl`` json, ``.tsv`` csv, ``.conll`` conll).
LOADABLE: dict[str, dict] = {
    "jsonl": {},
    "tsv": {"sep": "\t"},
    "conll": {"delimiter": "\t"},
    "conll-en": {"delimiter": "\t"},
    "lince": {"delimiter": "\t", "comment_prefix": "# sent_enum = "},
}
#: The CoNLL columns. ``datasets`` (5.x) drops ``column_names`` from a YAML config (its check looks for a class
#: attribute, and a list field has none), so the caller passes them: ``load_dataset(folder, column_names=[...])``.
CONLL_COLUMNS: dict[str, list[str]] = {
    "conll": ["tokens", "tags"], "conll-en": ["tokens", "tags"], "lince": ["tokens", "lid", "tags"],
}
#: The format whose configs go in the card when several are exported (first one present).
CARD_FORMATS = ("jsonl", "tsv", "conll", "lince", "conll-en")
DEFAULT_CONFIG = "all"


def _split_key(split: str) -> tuple[int, str]:
    order = {s: i for i, s in enumerate(SPLIT_ORDER)}
    return (order.get(split, 9), split)


def data_files(paths: Iterable[str], fmt: str) -> dict[str, dict[str, list[str]]]:
    """config name -> split -> paths, for a format's data files (``fmt/split.ext``: config ``all``;
    ``fmt/domain/split.ext``: config ``domain``, and ``all`` too when no combined file exists).
    Side files (``*.ids.tsv``) and anything not under ``fmt/`` are not data."""
    combined: dict[str, list[str]] = {}
    per_domain: dict[str, dict[str, list[str]]] = {}
    for path in sorted(paths):
        parts = path.split("/")
        if parts[0] != fmt or path.endswith(".ids.tsv") or parts[-1] == "README.md":
            continue
        split = parts[-1].rsplit(".", 1)[0]
        if len(parts) == 2:
            combined.setdefault(split, []).append(path)
        elif len(parts) == 3:
            per_domain.setdefault(parts[1], {}).setdefault(split, []).append(path)
    if not combined:
        for splits in per_domain.values():
            for split, files in splits.items():
                combined.setdefault(split, []).extend(files)
    configs = {DEFAULT_CONFIG: combined} if combined else {}
    configs.update(sorted(per_domain.items()))
    return {name: dict(sorted(splits.items(), key=lambda kv: _split_key(kv[0]))) for name, splits in configs.items()}


def _q(value) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON scalar or list is a YAML flow value


def configs_yaml(configs: dict[str, dict[str, list[str]]], fmt: str, prefix: str = "") -> list[str]:
    """The ``configs:`` block; ``prefix`` strips the folder from the paths of a README inside it."""
    lines = ["configs:"]
    for name, splits in configs.items():
        lines.append(f"- config_name: {_q(name)}")
        if name == DEFAULT_CONFIG:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split, files in splits.items():
            lines += [f"  - split: {_q(split)}", "    path:"]
            lines += [f"    - {_q(f.removeprefix(prefix))}" for f in files]
        lines += [f"  {key}: {_q(value)}" for key, value in LOADABLE[fmt].items()]
    return lines


def card_header(paths: Iterable[str], title: str) -> tuple[list[str], str | None]:
    """The card's YAML header (``---`` lines included) and the format its configs load (None: none loadable)."""
    paths = list(paths)
    for fmt in CARD_FORMATS:
        configs = data_files(paths, fmt)
        if configs:
            lines = ["---", f"pretty_name: {_q(title)}", "language:", "- hi", "- en",
                     "task_categories:", "- token-classification", *configs_yaml(configs, fmt), "---", ""]
            return lines, fmt
    return [], None


def folder_readmes(paths: Iterable[str]) -> dict[str, str]:
    """``FORMAT/README.md`` for each loadable format folder in ``paths``: its configs, and what the files are."""
    paths = list(paths)
    out = {}
    for fmt in LOADABLE:
        configs = data_files(paths, fmt)
        if not configs:
            continue
        names = ", ".join(f"`{n}`" for n in configs)
        columns = CONLL_COLUMNS.get(fmt)
        call = f", column_names={_q(columns)}" if columns else ""
        out[f"{fmt}/README.md"] = "\n".join([
            "---", *configs_yaml(configs, fmt, prefix=f"{fmt}/"), "---", "",
            f"# {fmt}", "",
            f"The `{fmt}` files of this export; the dataset card is `../README.md`. "
            f"`datasets.load_dataset(\"<this folder>\"{call})` reads the `{next(iter(configs))}` config; "
            f"configs: {names} (each split's files exactly once; side files such as `*.ids.tsv` are not data)."
            + (" Pass `column_names` as shown: `datasets` does not take a list option from this header, and "
               "without it the `conll` builder keeps only the first column." if columns else ""),
            "",
        ])
    return out


def card_body(card: str) -> str:
    """The card without its YAML header."""
    if card.startswith("---\n"):
        end = card.find("\n---\n", 4)
        if end != -1:
            return card[end + len("\n---\n"):].removeprefix("\n")
    return card


def with_card_header(card: str, paths: Iterable[str]) -> str:
    """The card with the YAML header for ``paths`` (the files it travels with) in place of its own."""
    body = card_body(card)
    header, _ = card_header(paths, body.split("\n", 1)[0].removeprefix("# "))
    return "\n".join(header) + body
