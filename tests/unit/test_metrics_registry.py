"""The figures as a registry (corpus.metrics): every registered figure reaches every report, and Krippendorff's
alpha, added as one module and one registry line, is right (the ``krippendorff`` package to 1e-12, and by hand)."""

from __future__ import annotations

import json
import random
from datetime import datetime

import numpy as np
import pytest

from corpus.agreement import MetricsInput, SentenceInfo, TagSet, TranslationInfo
from corpus.export.card import dataset_card
from corpus.export.records import ExportDataset
from corpus.metrics import (
    FIGURES,
    REPORT_KEYS,
    Figure,
    FigureResult,
    PhaseValue,
    Table2Row,
    compute_agreement,
    compute_report,
    format_report,
    summary_rows,
    table2,
    undefined_reasons,
)
from corpus.metrics import registry
from corpus.metrics.krippendorff import alpha_from_patterns
from corpus.ranking import table2_rows

T0 = datetime(2026, 3, 2, 10, 0)
WORD = "शब्द"
ALPHA = "krippendorff_alpha"


def tagged_input(groups: list[tuple[str, dict[str, str]]], k: int = 2) -> MetricsInput:
    """One sentence and translation per group: (phase, annotator -> tags), the text as long as the tags."""
    sentences, translations, tag_sets = [], [], []
    for i, (phase, tags) in enumerate(groups, 1):
        n = len(next(iter(tags.values())))
        sentences.append(SentenceInfo(i, f"s{i}", "restaurant", "train", "x", 0, i))
        translations.append(TranslationInfo(100 + i, i, phase, "asha", " ".join([WORD] * n), False, T0))
        tag_sets += [TagSet(100 + i, who, t, T0) for who, t in tags.items()]
    return MetricsInput(sentences, translations, tag_sets, {}, k)


def random_input(seed: int, k: int, translations: int = 120) -> MetricsInput:
    """Translations in both phases, most tagged by exactly ``k`` of six annotators who mostly agree (some by
    fewer or more: Fleiss' units leave them out, and so must alpha)."""
    rng = random.Random(seed)
    pool = ["a1", "a2", "a3", "a4", "a5", "a6"]
    groups = []
    for _ in range(translations):
        n = rng.randint(1, 9)
        truth = "".join(rng.choice("BIOOOO") for _ in range(n))
        raters = k if rng.random() < 0.85 else rng.choice([1, k + 1])
        tags = {}
        for who in rng.sample(pool, raters):
            tags[who] = "".join(c if rng.random() < 0.8 else rng.choice("BIO") for c in truth)
        groups.append((rng.choice(["aware", "blind"]), tags))
    return tagged_input(groups, k)


def reference_alpha(data: MetricsInput, phase: str | None) -> float:
    """The ``krippendorff`` package over the same units: annotators x tokens, NaN where one did not tag."""
    import krippendorff

    names = sorted({ts.annotator for ts in data.tag_sets})
    by_translation: dict[int, dict[str, str]] = {}
    for ts in data.tag_sets:
        by_translation.setdefault(ts.translation_pk, {})[ts.annotator] = ts.tags
    columns = []
    for t in data.translations:
        tags = by_translation.get(t.pk, {})
        if len(tags) != data.annotators_per_item or (phase is not None and t.phase != phase):
            continue
        block = np.full((len(names), len(next(iter(tags.values())))), np.nan)
        for who, tag in tags.items():
            block[names.index(who)] = ["BIO".index(c) for c in tag]
        columns.append(block)
    return krippendorff.alpha(reliability_data=np.concatenate(columns, axis=1), level_of_measurement="nominal")


@pytest.mark.parametrize("seed,k", [(1, 2), (2, 2), (3, 3), (4, 4)])
def test_alpha_equals_the_krippendorff_package_per_phase_and_overall(seed, k):
    data = random_input(seed, k)
    section = compute_agreement(data).section(ALPHA)
    for phase in ("aware", "blind", None):
        ours = section[phase or "overall"]["value"]
        assert ours == pytest.approx(reference_alpha(data, phase), abs=1e-12)


def test_alpha_by_hand_on_four_tokens():
    # Units (B,B) (O,O) (O,I) (O,O): n = 8 values, n_B 2, n_O 5, n_I 1; coincidences on the diagonal 2 + 2 + 2 = 6.
    # alpha = 1 - (n - 1)(n - 6) / (n^2 - (4 + 25 + 1)) = 1 - 7 * 2 / 34 = 10/17 (Fleiss' kappa: 9/17).
    data = tagged_input([("aware", {"meera": "BOOO", "nikhil": "BOIO"})])
    agreement = compute_agreement(data)
    alpha = agreement.section(ALPHA)
    assert alpha["aware"] == {"value": pytest.approx(10 / 17, abs=1e-15), "reason": None, "items": 4, "raters": 2}
    assert alpha["overall"]["value"] == pytest.approx(10 / 17, abs=1e-15)
    assert alpha["blind"]["value"] is None and alpha["blind"]["items"] == 0
    assert agreement.fleiss_kappa["aware"]["kappa"] == pytest.approx(9 / 17, abs=1e-15)
    assert agreement.results[ALPHA].per_phase["aware"] == PhaseValue(pytest.approx(10 / 17), None, 4)


def test_alpha_is_undefined_with_a_reason_when_everyone_gives_one_label():
    data = tagged_input([("aware", {"meera": "OOO", "nikhil": "OOO"}), ("blind", {"meera": "OB", "nikhil": "OB"})])
    alpha = compute_agreement(data).section(ALPHA)
    assert alpha["aware"]["value"] is None and "same label (O)" in alpha["aware"]["reason"]
    assert alpha["blind"]["value"] == 1.0
    assert alpha_from_patterns(np.zeros(27, dtype=np.int64), 2)["reason"].startswith("no items")


def test_alpha_leaves_out_translations_fleiss_leaves_out():
    data = tagged_input([("aware", {"meera": "BOOO", "nikhil": "BOIO"}), ("aware", {"meera": "BB"}),
                         ("aware", {"meera": "BO", "nikhil": "OO", "om": "OB"})])
    agreement = compute_agreement(data)
    assert agreement.section(ALPHA)["aware"]["items"] == agreement.fleiss_kappa["aware"]["items"] == 4
    assert agreement.section(ALPHA)["aware"]["value"] == pytest.approx(10 / 17, abs=1e-15)


def test_every_registered_figure_is_in_the_report_table_2_and_the_card():
    data = random_input(5, 2, translations=30)
    report = compute_report(data)
    assert tuple(report) == REPORT_KEYS
    assert [f.key for f in FIGURES] == list(REPORT_KEYS[2:-1])
    assert ALPHA in report and "alpha:nominal,BIO,k=2" in report["signature"]["text"]
    names = [r.figure for r in table2(report)]
    assert names == ["ROUGE-L F (weighted)", "ROUGE-L F (unweighted)", "Fleiss' kappa (B/I/O tokens)",
                     "Krippendorff's alpha (B/I/O tokens)"]
    alpha_row = next(r for r in table2(report) if r.key == ALPHA)
    assert (alpha_row.aware, alpha_row.blind, alpha_row.overall, alpha_row.best) == (
        report[ALPHA]["aware"]["value"], report[ALPHA]["blind"]["value"], report[ALPHA]["overall"]["value"], None)
    assert "Krippendorff's alpha (B/I/O tokens)" in format_report(report)
    card = dataset_card(ExportDataset([], [], meta={"metrics": json.loads(json.dumps(compute_agreement(data).report_summary()))}))
    assert f"| Krippendorff's alpha (B/I/O tokens) | {report[ALPHA]['aware']['value']:.3f} |" in card


def test_the_dashboard_table_2_is_the_same_builder_with_short_names_and_dashes():
    data = tagged_input([("aware", {"meera": "BOOO", "nikhil": "BOIO"})])
    agreement = compute_agreement(data)
    shown = table2_rows(agreement)
    numbers = summary_rows(agreement.report_summary())
    assert [r["figure"] for r in shown] == ["ROUGE-L F", "ROUGE-L F (unweighted)", "Fleiss' kappa", "Krippendorff's alpha"]
    assert len(shown) == len(numbers)
    assert shown[3] == {"figure": "Krippendorff's alpha", "aware": f"{10 / 17:.3f}", "blind": "—",
                        "overall": f"{10 / 17:.3f}", "best": "—"}
    assert numbers[3]["aware"] == pytest.approx(10 / 17)
    assert "Krippendorff's alpha blind: no items: no token was tagged by the full number of annotators" in \
        undefined_reasons(agreement.report_summary())


class _Dummy(Figure):
    key = "dummy_share"
    name = "dummy"
    explanation = "Dummy: the share of tagged translations."

    def compute(self, inputs):
        n = len(inputs.data.translations)
        return FigureResult(self.key, {"overall": PhaseValue(0.5, None, n)}, "dummy:1", {"overall": {"value": 0.5}})

    def signature_text(self, annotators_per_item):
        return "dummy:1"

    def table2(self, section):
        return (Table2Row(self.key, "Dummy share", "Dummy", None, None, section["overall"]["value"], None),)


def test_a_figure_registered_reaches_every_reporter_without_another_edit(monkeypatch):
    monkeypatch.setattr(registry, "FIGURES", (*registry.FIGURES, _Dummy()))
    data = tagged_input([("aware", {"meera": "BOOO", "nikhil": "BOIO"})])
    agreement = compute_agreement(data)
    summary = agreement.report_summary()
    assert summary["dummy_share"] == {"overall": {"value": 0.5}}
    assert summary["signature"]["text"].endswith("|dummy:1")
    assert table2_rows(agreement)[-1] == {"figure": "Dummy", "aware": "—", "blind": "—", "overall": "0.500", "best": "—"}
    assert "Dummy share" in format_report(summary)
    from corpus.metrics import explanations

    assert "Dummy: the share of tagged translations." in explanations()
