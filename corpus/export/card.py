"""The dataset card (``README.md`` in every export): what is in it, how it was made, what was left out."""

from __future__ import annotations

from collections import Counter

from corpus.codemix import LANG_TAGS, corpus_cmi
from corpus.export.endings import DANDA, endings_report, mark_name
from corpus.export.hub import DEFAULT_CONFIG, card_header, data_files
from corpus.export.options import ASPECT_TYPE, FormatOptions
from corpus.export.records import ExportDataset
from corpus.export.semeval_xml import unlinked_terms
from corpus.export.splits import split_divergence
from corpus.metrics import table2, undefined_reasons
from corpus.stats import LabelledSentence, table1
from corpus.tokens import TOKENIZER_SIGNATURE
from corpus.vocabulary import Phase, phase_spec

LEFT_OUT_EXPLAINED = {
    "untranslatable by majority": "most translators marked the sentence untranslatable (guideline 5)",
    "left out by lead": "the lead's final choice keeps no translation for the sentence",
    "not translated yet": "no translator has submitted a translation of the sentence yet (unresolved)",
    "no final translation": "translations are submitted, but no final translation is chosen yet (awaiting the "
                            "lead's decision; unresolved)",
    "not tagged": "the final translation has no tagging item yet",
    "tagging incomplete": "fewer submitted annotations than the project requires, and no adjudication",
    "annotators disagree": "annotators disagree and the lead has not adjudicated (unresolved)",
    "not agreed": "excluded by the agreed-only option: the gold labels needed the lead's adjudication",
    "tokens changed after tagging": "the translation was edited after tagging; its tags no longer fit the text",
    "invalid gold tags": "the gold tags are not valid BIO for the item's tokens",
    "final translation has no text": "the chosen translation is marked untranslatable or empty",
    "not translated": "(every-translation export) no translator has saved a translation of the sentence",
    "translation untranslatable": "(every-translation export) the translator marked it untranslatable",
    "translation not submitted": "(every-translation export) still a draft",
}

# Where an every-translation export means something else by a reason: it is about each translation,
# most of which are not the final one.
EVERY_TRANSLATION_EXPLAINED = {
    **LEFT_OUT_EXPLAINED,
    "not tagged": "the translation has no tagging item yet (it was not given to annotators)",
}

# Reasons only an every-translation export gives (a final-translation export never looks at the others).
_EVERY_TRANSLATION_REASONS = frozenset({"not translated", "translation untranslatable", "translation not submitted"})


def left_out_explained(every_translation: bool) -> dict[str, str]:
    """What each left-out reason means in this export's mode."""
    return EVERY_TRANSLATION_EXPLAINED if every_translation else LEFT_OUT_EXPLAINED


def is_every_translation(dataset: ExportDataset) -> bool:
    """The export's mode: ``meta["all_translations"]`` when the loader says, else what the data shows
    (a record that is not the final translation, or a reason only that mode gives)."""
    if "all_translations" in dataset.meta:
        return bool(dataset.meta["all_translations"])
    return (any(not r.is_final for r in dataset.sentences)
            or any(item.reason in _EVERY_TRANSLATION_REASONS for item in dataset.left_out))


METRICS_FILE = "metrics.json"

ID_FILES_TEXT = (
    "Exported with sentence ids, each CoNLL file `X.conll` has a side file `X.ids.tsv` (`sentence<TAB>id`: the "
    "1-based position of the sentence in `X.conll` and its id), so the data files stay readable by plain CoNLL "
    "readers such as NLTK's, which skip no comment line; `lince` files also number their sentences with "
    "LinCE's own `# sent_enum = N` lines (N = `sentence` in the side file), which LinCE's loaders skip."
)


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _num(x, digits: int = 3) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out.extend("| " + " | ".join(_num(c) for c in row) + " |" for row in rows)
    return out


def tags_line(options: FormatOptions | None) -> str:
    if options is not None and options.tag_style == "typed":
        return (f"- **Tags**: BIO, one aspect type; CoNLL files (`conll`, `conll-en`, `lince`) write it typed "
                f"(`B-{ASPECT_TYPE}`, `I-{ASPECT_TYPE}`, `O`, exported with `--tag-style typed`, the form spaCy's "
                "`convert -c ner` reads); JSONL `tags` stay plain (`B`, `I`, `O`)")
    return ("- **Tags**: plain BIO, one aspect type (`B`, `I`, `O`); `--tag-style typed` writes CoNLL files with "
            f"`B-{ASPECT_TYPE}`/`I-{ASPECT_TYPE}` for tools that require a type (spaCy)")


def hub_lines(files: list[str]) -> list[str]:
    """How Hugging Face ``datasets`` loads this export (the configs of the YAML header and the folders)."""
    _, fmt = card_header(files, "")
    if fmt is None:
        return []
    configs = data_files(files, fmt)
    domain_configs = ", ".join(f"`{c}`" for c in configs if c != DEFAULT_CONFIG)
    folders = sorted({f.split("/", 1)[0] for f in files if f.endswith("/README.md")})
    return [
        "## Loading with Hugging Face `datasets`", "",
        f"`datasets.load_dataset(\"<this folder>\")` reads the `{fmt}` files of the config `{next(iter(configs))}`"
        + (f"; `load_dataset(\"<this folder>\", \"<domain>\")` one domain ({domain_configs})" if domain_configs else "")
        + ": the `configs:` block of this card's YAML header names each split's files, so every sentence is read "
        "once (never the combined and the per-domain files together, never a side file). Each format folder "
        f"({', '.join(f'`{f}/`' for f in folders)}) has a `README.md` with its own configs: "
        "`load_dataset(\"<this folder>/tsv\")` and the CoNLL folders load the same way (the CoNLL ones with "
        "`datasets`' `conll` builder and `column_names=[\"tokens\", \"tags\"]`, in `lince` "
        "`[\"tokens\", \"lid\", \"tags\"]`, passed to `load_dataset`: a YAML header cannot set them).",
        "",
    ]


def polarity_lines(dataset: ExportDataset, files: list[str]) -> list[str]:
    if not any(f.startswith("semeval-xml/") for f in files):
        return []
    unlinked, total = unlinked_terms(dataset.sentences)
    return [
        "## Polarity in the SemEval XML", "",
        f"Every `aspectTerm` has a `polarity` attribute. A Hindi term linked to an English aspect (by the "
        "translation's aspect map, or, for a translation without one such as an aspect-blind one, by the same "
        "words that another translation's map gives exactly one English aspect) carries that aspect's "
        "SemEval-2014 label (`positive`, `negative`, `neutral`, `conflict`). "
        f"{unlinked} of {total} Hindi aspect terms are linked to none and carry `polarity=\"\"` (empty: unknown); "
        "no label is guessed for them. Readers that need a label should skip those terms; "
        "`python -m corpus import-semeval` reads an empty polarity as none.",
        "",
    ]


def endings_lines(dataset: ExportDataset) -> list[str]:
    report = endings_report((r.uid, r.hi_text) for r in dataset.sentences if r.hi_text)
    lines = ["## How the Hindi sentences end", ""]
    if not report.sentences:
        return lines + ["No Hindi sentence in this export.", ""]
    lines += [f"{report.with_danda} of {report.sentences} Hindi sentences end with the danda `{DANDA}`; "
              f"{report.ending_otherwise} end otherwise" + (":" if report.ending_otherwise else "."), ""]
    if report.otherwise:
        rows = []
        for mark, ids in report.otherwise.items():
            shown = ", ".join(f"`{i}`" for i in ids[:ENDING_IDS_SHOWN])
            more = f" and {len(ids) - ENDING_IDS_SHOWN} more" if len(ids) > ENDING_IDS_SHOWN else ""
            rows.append([mark_name(mark), len(ids), shown + more])
        lines += _table(["ends with", "sentences", "ids"], rows)
        lines += ["", "A question or an exclamation may rightly end with `?` or `!`; a final `.` or `|` is usually "
                  "a danda typed before the editor converted it.", ""]
    return lines


ENDING_IDS_SHOWN = 20


def _split_counts(recs) -> tuple[Counter, Counter, Counter]:
    """Sentences per (split, domain), and Hindi and English aspect terms per split: one pass over the records
    for the card's two count tables (a pass per cell took ~20)."""
    sentences: Counter = Counter()
    hi_terms: Counter = Counter()
    en_terms: Counter = Counter()
    for r in recs:
        sentences[r.split, r.domain] += 1
        hi_terms[r.split] += len(r.hi_aspects)
        en_terms[r.split] += len(r.en_aspects)
    return sentences, hi_terms, en_terms


def dataset_card(dataset: ExportDataset, files: list[str] | None = None, options: FormatOptions | None = None) -> str:
    meta = dataset.meta
    recs = dataset.sentences
    lines = [f"# {meta.get('title') or 'Hindi aspect extraction corpus'}", ""]
    lines += [
        "Hindi translations of SemEval-2014 Task 4 (restaurant, laptop) review sentences with gold aspect-term "
        "BIO labels, built by the method of Bhattacharya et al., *Enhancing Aspect Extraction in Hindi* (ECNLP 2021). "
        "Usable as a Hindi aspect-extraction dataset, or in parallel with the English side.",
        "",
        f"- **License**: {meta.get('license') or 'TO BE FILLED IN BY THE LEAD (the SemEval-2014 source data has its own terms)'}",
        f"- **Exported**: {meta.get('exported_at', 'n/a')}",
        f"- **Tokenizer**: `{TOKENIZER_SIGNATURE}` (NFC; runs of letters, marks, digits, ZWJ/ZWNJ; other characters alone)",
        tags_line(options),
        f"- **Export options**: {meta.get('options_text', 'n/a')}",
        "",
    ]
    if files:
        lines += hub_lines(files)

    lines += ["## Counts per split and domain", ""]
    domains = dataset.domains()
    splits = dataset.splits()
    sentences, hi_terms, en_terms = _split_counts(recs)
    rows = []
    for split in splits:
        row = [split] + [sentences[split, d] for d in domains]
        rows.append(row + [sum(sentences[split, d] for d in domains)])
    rows.append(["total"] + [sum(sentences[s, d] for s in splits) for d in domains] + [len(recs)])
    lines += _table(["split"] + domains + ["all"], rows) + [""]
    aspects = [
        ["Hindi aspect terms"] + [hi_terms[s] for s in splits] + [sum(hi_terms.values())],
        ["English aspect terms"] + [en_terms[s] for s in splits] + [sum(en_terms.values())],
    ]
    lines += _table([""] + splits + ["all"], aspects) + [""]

    lines += ["## Corpus statistics (seed paper Table 1)", ""]
    en = table1(LabelledSentence(r.domain, r.en_tags, len(r.en_aspects)) for r in recs)
    hi = table1(LabelledSentence(r.domain, r.hi_tags, len(r.hi_aspects)) for r in recs)
    share = lambda x: _pct(x) if x is not None else "n/a"  # noqa: E731
    stat_rows = [
        ["sentences", en["sentences"], hi["sentences"]],
        ["aspect terms", en["aspect_terms"], hi["aspect_terms"]],
        ["sentences with >= 1 aspect", en["marked_sentences"], hi["marked_sentences"]],
        ["share of sentences with aspects", share(en["marked_share"]), share(hi["marked_share"])],
        ["aspects per sentence", en["aspects_per_sentence"], hi["aspects_per_sentence"]],
        ["aspects per marked sentence", en["aspects_per_marked_sentence"], hi["aspects_per_marked_sentence"]],
        ["tokens", en["tokens"], hi["tokens"]],
        *[[f"{t} tokens", share(en["tag_share"][t]), share(hi["tag_share"][t])] for t in ("B", "I", "O")],
        ["domains", en["domains"], hi["domains"]],
    ]
    stat_rows += [[f"sentences ({d})", v["sentences"], hi["per_domain"].get(d, {}).get("sentences", 0)]
                  for d, v in en["per_domain"].items()]
    lines += _table(["", "English (source side)", "Hindi (this export)"], stat_rows)
    lines += ["", "Computed over the exported sentences with `corpus.stats.table1` (the definitions of `python -m corpus stats`); English tags come from the SemEval offsets with the same tokenizer.", ""]
    if meta.get("table1_note"):
        lines += [meta["table1_note"], ""]
    if meta.get("baseline"):  # optional: a CRF report (``corpus.baseline.dataset_baseline``) put in the meta
        from corpus.baseline import card_lines

        lines += card_lines(meta["baseline"])
        if meta.get("baseline_note"):
            lines += [meta["baseline_note"], ""]

    lines += ["## Agreement (seed paper Table 2)", ""]
    report = meta.get("metrics")
    if report:
        rouge = report["rouge_l"]
        lines += _table(
            ["figure", phase_spec(Phase.AWARE).label, phase_spec(Phase.BLIND).label, "overall", "chosen translation"],
            [[row.figure, row.aware, row.blind, row.overall, row.best] for row in table2(report)],
        )
        lines += [
            "",
            "Over the whole project, exactly as `python -m corpus metrics --json` reports them (every figure, with "
            f"per-annotator kappa and span F1, is in `{METRICS_FILE}`). ROUGE-L: {report['signature']['rouge_l']}; "
            f"over {rouge['units'][Phase.AWARE]} aware and {rouge['units'][Phase.BLIND]} blind (sentence, phase) "
            "units with "
            f">= 2 submitted translations ({rouge['excluded_units']} units with a single translation excluded); "
            f"{rouge['weighting']}; the chosen translation of a unit has the highest mean ROUGE-L against the others "
            "(ties: more aspects kept, then earlier submission). "
            f"Fleiss' kappa: {report['signature']['fleiss_kappa']}.",
            "",
        ]
        reasons = undefined_reasons(report)
        if reasons:
            lines += [f"- {reason}" for reason in reasons] + [""]
        coverage = report["coverage"]
        percent = "n/a" if coverage["percent"] is None else f"{coverage['percent']:.2f}%"
        lines += [
            f"Coverage: {coverage['fewer_in_blind']} of {coverage['compared']} sentences ({percent}) kept fewer aspects "
            f"in the aspect-blind phase ({coverage['definition']}).",
            "",
            f"Signature: `{report['signature']['text']}`",
            "",
        ]
    else:
        lines += ["Not available for this export.", ""]

    lines += ["## Code-mixing", ""]
    mixing = corpus_cmi(r.lid for r in recs)
    lines += _table(
        ["", "value"],
        [
            ["CMI, all sentences", mixing.cmi_all if mixing.sentences else None],
            ["CMI, code-mixed sentences only", mixing.cmi_mixed if mixing.code_mixed else None],
            ["code-mixed sentences", mixing.code_mixed],
        ] + [[f"`{lab}` tokens", mixing.tag_counts[lab]] for lab in LANG_TAGS],
    )
    lines += ["", f"Language IDs by {meta.get('lid_source', 'corpus.codemix')}; CMI after Gambäck & Das (2014), "
              "with `ne` and `other` language-independent as in LinCE.", ""]

    lines += ["## Splits", ""]
    lines += [meta.get("split_note", "SemEval-2014's train/test split is kept."), ""]
    div = split_divergence(recs)
    lines += _table(
        ["split", "sentences", "tokens", "B", "I", "O", "KL vs whole (nats)"],
        [[s, d["sentences"], d["tokens"], _pct(d["distribution"]["B"]), _pct(d["distribution"]["I"]),
          _pct(d["distribution"]["O"]), f"{d['kl_vs_whole']:.6f}"] for s, d in
         ((s, div[s]) for s in splits)],
    )
    lines += [""]

    lines += ["## How the items were chosen", ""]
    lines += [meta.get("selection", "One final translation per source sentence with its gold labels."), ""]
    gold = Counter(r.gold_source for r in recs)
    phases = Counter(r.phase for r in recs)
    lines += _table(["", "sentences"],
                    [[f"gold labels: {k}", v] for k, v in sorted(gold.items())]
                    + [[f"translation phase: {k}", v] for k, v in sorted(phases.items())])
    lines += [""]

    lines += ["## Guidelines", ""]
    versions = Counter(r.guidelines_version or "not recorded" for r in recs)
    lines += _table(["translation guidelines version", "sentences"], sorted(versions.items()))
    lines += ["", f"Tagging guidelines version: {meta.get('tagging_guidelines') or 'not recorded'}", ""]

    lines += endings_lines(dataset)
    if files:
        lines += polarity_lines(dataset, files)

    lines += ["## What was left out and why", ""]
    counts = dataset.left_out_counts()
    if counts:
        explained = left_out_explained(is_every_translation(dataset))
        lines += _table(["reason", "count", "meaning"], [[k, v, explained.get(k, "")] for k, v in counts.items()])
        lines += ["", "Every item left out is listed in `left_out.tsv`.", ""]
    else:
        lines += ["Nothing was left out.", ""]

    if files:
        lines += ["## Files", ""]
        lines += [f"- `{f}`" for f in files]
        lines += [
            "",
            "CoNLL files: `token<TAB>tag` (`lince`: `token<TAB>lid<TAB>tag`), a blank line after each sentence. "
            + ID_FILES_TEXT + " `conll` and `conll-en` hold the same "
            "sentences in the same order. JSONL: one object per sentence; Hindi `aspects` satisfy "
            "`text[from:to] == term`; every row has the same keys and types (integers never null: `source_aspect` "
            "is -1 where the aspect map links no English aspect). SemEval XML: offsets into the Hindi `<text>`; every aspect term has a "
            "`polarity` (see above). Tabs and line breaks inside a text are written as spaces in every format (one "
            "space each, so offsets and tokens are unchanged). TSV: tab-separated with a header row, quoted by "
            "the `csv` module's rules (a field holding `\"` is enclosed in `\"` with each `\"` doubled), so "
            "pandas `read_csv(sep=\"\\t\")`, `csv.DictReader(delimiter=\"\\t\")` and `datasets` read every row "
            f"back with their default options. `{METRICS_FILE}`: the agreement figures of `python -m corpus metrics "
            "--json` for the whole project, every section but the long `rouge_l_pairs` and `rouge_l_sentences` row "
            "lists (each exported translation's own figures are in its JSONL row's `agreement`).",
            "",
        ]
    return "\n".join(lines)


def source_card(dataset: ExportDataset, files: list[str] | None = None, options: FormatOptions | None = None) -> str:
    """The card of a ``--source-only`` export: the English SemEval side of every imported sentence."""
    meta = dataset.meta
    recs = dataset.sentences
    lines = [f"# {meta.get('title') or 'SemEval-2014 source sentences'}", ""]
    lines += [
        "The English SemEval-2014 Task 4 sentences of the project, every imported sentence whether translated or "
        "not, with aspect-term BIO tags from the SemEval character offsets: a baseline's English side.",
        "",
        f"- **License**: {meta.get('license') or 'TO BE FILLED IN BY THE LEAD (the SemEval-2014 source data has its own terms)'}",
        f"- **Exported**: {meta.get('exported_at', 'n/a')}",
        f"- **Tokenizer**: `{TOKENIZER_SIGNATURE}` (NFC; runs of letters, marks, digits, ZWJ/ZWNJ; other characters alone)",
        tags_line(options) + "; a SemEval span that cuts a token covers the whole token, and overlapping spans "
        "are merged",
        f"- **Export options**: {meta.get('options_text', 'n/a')}",
        "",
        "## Counts per split and domain",
        "",
    ]
    domains, splits = dataset.domains(), dataset.splits()
    rows = [[split] + [sum(1 for r in recs if r.split == split and r.domain == d) for d in domains]
            + [sum(1 for r in recs if r.split == split)] for split in splits]
    rows.append(["total"] + [sum(1 for r in recs if r.domain == d) for d in domains] + [len(recs)])
    lines += _table(["split"] + domains + ["all"], rows) + [""]
    en = table1(LabelledSentence(r.domain, r.en_tags, len(r.en_aspects)) for r in recs)
    lines += ["## Corpus statistics (seed paper Table 1)", ""]
    lines += _table(["", "English"], [
        ["sentences", en["sentences"]], ["aspect terms", en["aspect_terms"]],
        ["sentences with >= 1 aspect", en["marked_sentences"]], ["tokens", en["tokens"]],
        *[[f"{t} tokens", _pct(en["tag_share"][t]) if en["tag_share"][t] is not None else "n/a"] for t in ("B", "I", "O")],
    ])
    lines += [""]
    if files:
        lines += ["## Files", ""] + [f"- `{f}`" for f in files]
        lines += ["", "CoNLL files: `token<TAB>tag`, a blank line after each sentence, sentences in corpus order. "
                  + ID_FILES_TEXT, ""]
    return "\n".join(lines)
