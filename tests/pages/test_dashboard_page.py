"""AppTest: the lead's dashboard on a small project with known figures."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import FinalChoice, GlossaryTerm, SourceSentence, Translation, User
from tests.support.app_pages import open_file, open_page
from tests.support.metrics_fixtures import build_small_project, expected_rouge


@pytest.fixture
def project_db(app_engine):
    engine = app_engine
    build_small_project(engine, domain_r2="laptop")
    from db.users import create_user

    create_user(engine, "lead", {"lead"}, "lead-password")
    return engine


def open_dashboard(engine, username: str = "lead") -> AppTest:
    """Through the app's navigation, as a browser gets there (the sentence links need the router's pages)."""
    return open_page(engine, username, "pages/dashboard.py")


def set_blind_text(engine, translator: str, text: str) -> None:
    with Session(engine) as session:
        t = session.scalars(
            select(Translation).join(User, User.id == Translation.translator_id)
            .where((Translation.phase == "blind") & (User.username == translator))
        ).one()
        t.text = text
        session.commit()


# Only selectable tables keep their key in AppTest; the others are told by a column of their own.
COLUMN_OF = {"dash_table2": "best", "dash_translators": "95% interval", "dash_annotators": "kappa vs others",
             "dash_domain_list": "units", "dash_progress_phases": "translations assigned"}


def frame(at: AppTest, key: str) -> pd.DataFrame:
    if key in COLUMN_OF:
        return next(df.value for df in at.dataframe if COLUMN_OF[key] in df.value.columns)
    return next(df.value for df in at.dataframe if df.proto.id.endswith(f"-{key}"))


def table2(at: AppTest):
    return frame(at, "dash_table2").set_index("figure")


ROUGE = "ROUGE-L F"
KAPPA = "Fleiss' kappa"


def texts(at: AppTest) -> list[str]:
    return [str(e.value) for kind in ("caption", "text", "markdown", "info") for e in getattr(at, kind)]


def links(at: AppTest) -> list[tuple[str, str, str]]:
    return [(p.proto.label, p.proto.page.rsplit("/", 1)[-1], p.proto.query_string) for p in at.get("page_link")]


def r1_id(engine) -> int:
    with Session(engine) as session:
        return session.scalars(select(SourceSentence.id).where(SourceSentence.sentence_id == "r1")).one()


def test_table_2_shows_the_known_figures_with_a_dash_where_undefined(project_db):
    at = open_dashboard(project_db)
    assert not at.exception
    t2 = table2(at)
    expected = expected_rouge()
    assert t2.loc[ROUGE].tolist() == [f"{expected[c]:.3f}" for c in ("aware", "blind", "overall", "best")]
    assert t2.loc[KAPPA].tolist() == [f"{43 / 59:.3f}", "—", f"{13 / 17:.3f}", "—"]  # blind: a single label
    assert not any(v in ("None", "nan", "NaN") for v in t2.to_numpy().ravel())
    shown = "\n".join(texts(at))
    assert ("Over 2 translated sentences: ROUGE-L over 4 translation pairs in 2 sentence-phase units by 3 translators; "
            "Fleiss' kappa over 14 tokens of 4 translations tagged by 2 annotators each (2 annotators in all).") in shown


def test_method_notes_and_signatures_sit_in_one_expander(project_db):
    at = open_dashboard(project_db)
    method = next(e for e in at.expander if e.label == "How these figures are computed")
    inside = "\n".join(c.value for c in method.caption)
    assert "ROUGE-L F: how much two translations" in inside
    assert "Fleiss' kappa: how far annotators agree" in inside
    assert "Fleiss' kappa blind: every annotator gave every item the same label (O)" in inside
    assert "kappa is not defined for the chosen translation alone" in inside
    assert "Signature: tok:hi-canon/1.0" in inside
    outside = [c.value for c in at.caption if c.value not in {m.value for m in method.caption}]
    assert not any("Signature" in c for c in outside)


def test_every_table_has_a_csv_download(project_db):
    at = open_dashboard(project_db)
    labels = [b.label for b in at.get("download_button")]
    for name in ("Table 2", "progress per phase", "progress per person", "translators", "annotators",
                 "annotator pairs", "domains", "agreement by week", "agreement of all 2 sentence-phase units",
                 "coverage"):
        assert f"CSV: {name}" in labels


def test_on_demand_tables_have_a_csv_download_too(project_db):
    at = open_dashboard(project_db)
    at.toggle(key="dash_codemix").set_value(True)
    at.toggle(key="dash_spelling").set_value(True).run()
    assert not at.exception
    labels = [b.label for b in at.get("download_button")]
    for name in ("CMI summary", "language tags", "CMI per sentence", "ROUGE-L raw and spelling-tolerant",
                 "pairs whose score changes most"):
        assert f"CSV: {name}" in labels


def test_lowest_agreement_sentences_come_first_with_their_text_and_pairs(project_db):
    at = open_dashboard(project_db)
    lowest = frame(at, "dash_lowest")
    assert lowest[["sentence", "phase", "pairs"]].values.tolist() == [
        ["restaurant/train/r1", "aware", 3], ["restaurant/train/r1", "blind", 1]]
    assert lowest["ROUGE-L"].tolist() == pytest.approx([31 / 63, 1.0])
    assert lowest["English"].tolist() == ["But the staff was so horrible"] * 2
    assert lowest["Hindi kept"].tolist() == ["स्टाफ़ बुरा था", "खाना अच्छा था"]  # asha: best mean 25/42
    assert lowest["tag agreement"].tolist() == pytest.approx([7 / 8, 1.0])  # BOO/BOO 3 of 3, BOOOO/BIOOO 4 of 5


def test_the_worst_sentence_links_to_its_sentence_view(project_db):
    at = open_dashboard(project_db)
    assert ("Open the lowest: restaurant/train/r1 (aware)", "sentences", f"id={r1_id(project_db)}") in links(at)


def test_a_selected_sentence_row_links_to_that_sentence(project_db):
    at = open_dashboard(project_db)
    at.session_state["dash_lowest"] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert ("Open restaurant/train/r1 (blind)", "sentences", f"id={r1_id(project_db)}") in links(at)


def test_translators_and_annotators_are_ranked_worst_first_with_their_sample(project_db):
    # chitra: 1/3 and 2/7 -> 13/42 over 2 pairs; bilal: 6/7, 2/7, 1 -> 15/21; asha: 6/7, 1/3, 1 -> 46/63.
    at = open_dashboard(project_db)
    translators = frame(at, "dash_translators")
    assert translators[["translator", "pairs"]].values.tolist() == [["chitra", 2], ["bilal", 3], ["asha", 3]]
    assert translators["ROUGE-L vs others"].tolist() == pytest.approx([13 / 42, 15 / 21, 46 / 63])
    assert translators["95% interval"].str.fullmatch(r"\d\.\d\d–\d\.\d\d").all()
    annotators = frame(at, "dash_annotators").set_index("annotator")
    assert annotators.loc["meera", "kappa vs others"] == pytest.approx(23 / 30)
    assert (annotators.loc["meera", "tokens"], annotators.loc["meera", "translations"]) == (14, 4)


def test_domains_are_listed_with_their_units(project_db):
    at = open_dashboard(project_db)
    domains = frame(at, "dash_domain_list")
    assert domains["domain"].tolist() == ["restaurant", "laptop"]  # laptop: nothing to compare, undefined last
    assert domains.set_index("domain").loc["restaurant", "units"] == 2
    assert pd.isna(domains.set_index("domain").loc["laptop", "ROUGE-L"])
    assert all(df.proto.placeholder == "—" for df in at.dataframe)  # undefined cells read "—", never None


def test_clicking_a_domain_phase_bar_narrows_the_lists(project_db):
    import json

    at = open_dashboard(project_db)
    chart = next(c for c in at.get("vega_lite_chart") if "pick" in c.proto.spec)
    spec = json.loads(chart.proto.spec)
    assert spec["params"][0]["select"]["fields"] == ["domain", "phase"]
    fields = [e["field"] for e in spec["encoding"].values() if isinstance(e, dict) and "field" in e]
    assert not any("'" in f for f in fields)  # an apostrophe in a field name and Vega draws nothing
    at.session_state["dash_scope"] = {"selection": {"pick": [{"domain": "restaurant", "phase": "blind"}]}}
    at.run()
    assert not at.exception
    assert frame(at, "dash_lowest")["phase"].tolist() == ["blind"]
    assert frame(at, "dash_translators")[["translator", "pairs"]].values.tolist() == [["asha", 1], ["bilal", 1]]
    assert any("restaurant · blind" in t for t in texts(at))
    assert table2(at).loc[ROUGE, "aware"] == f"{expected_rouge()['aware']:.3f}"  # Table 2 stays whole


def test_coverage_is_a_plain_figure_without_an_arrow(project_db):
    at = open_dashboard(project_db)
    metric = next(m for m in at.metric if m.label.startswith("Sentences that lost aspects"))
    assert metric.value == "1 of 1 (100.0%)"
    assert not metric.proto.delta
    assert any("a sentence lost aspects when" in t for t in texts(at))
    assert frame(at, "dash_coverage")["id"].tolist() == [r1_id(project_db)]


def test_the_weekly_line_breaks_where_a_week_has_no_data(project_db):
    import json

    import pyarrow as pa

    at = open_dashboard(project_db)
    chart = next(c.proto for c in at.get("vega_lite_chart") if json.loads(c.proto.spec)["encoding"]["x"]["field"] == "week")
    spec = json.loads(chart.spec)
    assert spec["encoding"]["x"]["type"] == "temporal" and spec["encoding"]["detail"]["field"] == "run"
    data = pa.ipc.open_stream(chart.datasets[0].data.data).read_pandas()
    rouge = data[data["figure"] == "ROUGE-L F"]
    assert rouge["week"].tolist() == ["2026-03-02", "2026-03-09"]  # consecutive weeks: one run
    assert rouge["run"].nunique() == 1


def test_a_new_save_shows_at_once(project_db):
    at = open_dashboard(project_db)
    assert table2(at).loc[ROUGE, "blind"] == "1.000"
    set_blind_text(project_db, "asha", "बिलकुल अलग शब्द")
    at.run()
    assert table2(at).loc[ROUGE, "blind"] == "0.000"


def test_a_draft_saved_keeps_the_figures_and_a_submitted_change_recomputes_them(project_db, monkeypatch):
    """Translators autosave drafts all day: that changes nothing the figures count, so the lead's dashboard
    does not compute them again (a save stamp still changes: the open work is read again)."""
    import corpus.metrics

    computed = []
    compute = corpus.metrics.compute_agreement
    monkeypatch.setattr(corpus.metrics, "compute_agreement", lambda data: computed.append(data) or compute(data))
    at = open_dashboard(project_db)
    assert len(computed) == 1
    with Session(project_db) as session:
        draft = session.scalars(select(Translation).where(Translation.status == "draft")).one()
        draft.text = "नया मसौदा"
        session.commit()
    at.run()
    assert not at.exception and len(computed) == 1
    set_blind_text(project_db, "asha", "बिलकुल अलग शब्द")
    at.run()
    assert len(computed) == 2
    assert table2(at).loc[ROUGE, "blind"] == "0.000"


def test_a_failed_read_of_the_open_work_is_tried_again_on_the_next_run(project_db, monkeypatch):
    """The open work is read in a thread; a failure shows, and is not kept for the rest of that save."""
    import db.metrics_data

    load_progress = db.metrics_data.load_progress
    failures = []

    def flaky(*args):
        if failures:
            raise RuntimeError(failures.pop())
        return load_progress(*args)

    monkeypatch.setattr(db.metrics_data, "load_progress", flaky)
    at = open_dashboard(project_db)
    failures.append("database is locked")
    set_blind_text(project_db, "asha", "बिलकुल अलग शब्द")  # a new save: its open work is read anew, and fails
    at.run()
    assert at.exception
    at.run()
    assert not at.exception
    assert not failures


def test_filtering_by_domain_recomputes_the_figures(project_db):
    at = open_dashboard(project_db)
    assert "laptop" in at.multiselect(key="dash_domains").options
    at.multiselect(key="dash_domains").set_value(["laptop"]).run()
    assert not at.exception
    assert table2(at).loc[ROUGE].tolist() == ["—"] * 4  # laptop has only r2: one translation, excluded
    assert any("1 sentence-phase units left out" in t for t in texts(at))


def test_an_empty_filter_means_every_domain(project_db):
    at = open_dashboard(project_db)
    at.multiselect(key="dash_domains").set_value([]).run()
    assert table2(at).loc[ROUGE, "aware"] == f"{expected_rouge()['aware']:.3f}"


def make_r2_aware_a_pair(engine) -> None:
    """chitra translates r2 after all: "अच्छा खाना था" against asha's "अच्छा खाना": LCS 2 -> F 2·1·(2/3)/(5/3) = 4/5."""
    with Session(engine) as session:
        t = session.scalars(
            select(Translation).join(User, User.id == Translation.translator_id)
            .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where((SourceSentence.sentence_id == "r2") & (User.username == "chitra"))
        ).one()
        t.untranslatable, t.untranslatable_reason, t.text = False, None, "अच्छा खाना था"
        session.commit()


def test_filtering_by_split_recomputes_figures_progress_and_sentences(project_db):
    from corpus.agreement import filter_input
    from corpus.metrics import compute_agreement
    from corpus.ranking import table2_rows
    from db.metrics_data import load_metrics_input

    make_r2_aware_a_pair(project_db)
    at = open_dashboard(project_db)
    assert at.multiselect(key="dash_splits").options == ["test", "train"]
    at.multiselect(key="dash_splits").set_value(["test"]).run()
    assert not at.exception
    t2 = table2(at)
    assert t2.loc[ROUGE].tolist() == ["0.800", "—", "0.800", "0.800"]  # r2 alone, by hand; no blind translation
    with Session(project_db) as session:
        project = session.scalars(select(SourceSentence.project_id)).first()
    data = filter_input(load_metrics_input(project_db, project), None, ("test",))
    pd.testing.assert_frame_equal(t2.reset_index(), pd.DataFrame(table2_rows(compute_agreement(data))))
    lowest = frame(at, "dash_lowest")
    assert lowest[["sentence", "phase", "pairs"]].values.tolist() == [["laptop/test/r2", "aware", 1]]
    assert lowest["ROUGE-L"].tolist() == pytest.approx([4 / 5])
    phases = frame(at, "dash_progress_phases").set_index("phase")
    assert phases.loc["aware", "translations submitted"] == 2  # asha and chitra on r2
    assert phases.loc["blind", "translations submitted"] == 0


def test_progress_counts_against_the_work_handed_out(project_db):
    # aware: asha, bilal, chitra on r1, asha and chitra (untranslatable) on r2 = 5 submitted of 5 handed out
    # (no open task; the setting of 4 translators per phase would say 8); tagged: meera and nikhil on asha's and
    # bilal's = 4 of 5 × 2 annotators. blind: asha and bilal on r1 = 2, chitra's draft = 1 -> 2 of 3.
    at = open_dashboard(project_db)
    phases = frame(at, "dash_progress_phases").set_index("phase")
    aware, blind = phases.loc["aware"], phases.loc["blind"]
    assert (aware["translations submitted"], aware["translations assigned"]) == (5, 5)
    assert aware["translated % (of assigned)"] == pytest.approx(100.0)
    assert aware["tagged % (of submitted translations x K)"] == pytest.approx(40.0)
    assert (blind["translations submitted"], blind["translations assigned"]) == (2, 3)
    assert blind["translated % (of assigned)"] == pytest.approx(200 / 3)
    assert blind["tagged % (of submitted translations x K)"] == pytest.approx(100.0)


def test_translators_cannot_open_the_dashboard(project_db):
    at = open_file(project_db, "asha", "pages/dashboard.py")
    assert at.error and "do not have access" in at.error[0].value
    assert not at.dataframe


# --- Code-mixing and spelling-tolerant ROUGE-L (on demand) -------------------------------------------
# r2's aware translation by asha becomes "Sony का food अच्छा है।": tokens Sony का food अच्छा है ।
#   with "Sony" a keep-Roman glossary term: ne lang2 lang1 lang2 lang2 other -> n 6, u 2, max 3
#   -> CMI 100 × (1 − 3/4) = 25; without the glossary term Sony is lang1: u 1 -> 100 × (1 − 3/5) = 40.
MIXED = "Sony का food अच्छा है।"


def set_text(engine, sentence: str, phase: str, translator: str, text: str) -> None:
    with Session(engine) as session:
        t = session.scalars(
            select(Translation).join(User, User.id == Translation.translator_id)
            .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where((SourceSentence.sentence_id == sentence) & (Translation.phase == phase) & (User.username == translator))
        ).one()
        t.text = text
        session.commit()


def add_keep_roman(engine, english: str, hindi: str) -> None:
    with Session(engine) as session:
        project_id = session.scalars(select(SourceSentence.project_id)).first()
        session.add(GlossaryTerm(project_id=project_id, english=english, hindi=hindi, rule="keep-roman"))
        session.commit()


def choose_final(engine, sentence: str, phase: str, translator: str) -> None:
    with Session(engine) as session:
        t = session.scalars(
            select(Translation).join(User, User.id == Translation.translator_id)
            .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where((SourceSentence.sentence_id == sentence) & (Translation.phase == phase) & (User.username == translator))
        ).one()
        session.add(FinalChoice(sentence_id=t.sentence_id, translation_id=t.id, auto_translation_id=t.id, policy="aware"))
        session.commit()


def frame_with(at: AppTest, column: str):
    return next(df.value for df in at.dataframe if column in df.value.columns)


def has_frame_with(at: AppTest, column: str) -> bool:
    return any(column in df.value.columns for df in at.dataframe)


def test_code_mixing_is_computed_only_when_opened_over_final_translations(project_db):
    set_text(project_db, "r2", "aware", "asha", MIXED)
    add_keep_roman(project_db, "Sony", "सोनी")
    choose_final(project_db, "r1", "blind", "asha")  # "खाना अच्छा था": CMI 0
    choose_final(project_db, "r2", "aware", "asha")  # CMI 25
    at = open_dashboard(project_db)
    assert not has_frame_with(at, "cmi_all")
    at.toggle(key="dash_codemix").set_value(True).run()
    assert not at.exception
    row = frame_with(at, "cmi_all").iloc[0]
    assert (row["sentences"], row["code_mixed"]) == (2, 1)
    assert row["code_mixed_pct"] == pytest.approx(50.0)
    assert row["cmi_all"] == pytest.approx(12.5)
    assert row["cmi_mixed"] == pytest.approx(25.0)
    tags = frame_with(at, "meaning").set_index("tag")["tokens"].to_dict()
    assert tags == {"lang1": 1, "lang2": 6, "ne": 1, "other": 1}
    shown = "\n".join(texts(at))
    assert "Gambäck & Das 2014" in shown
    assert "Over the final translation of each sentence: 2 of 2 sentences" in shown
    assert "CSV: CMI per sentence" in [b.label for b in at.get("download_button")]
    mixed = frame_with(at, "cmi")
    assert mixed["text"].tolist() == [MIXED]  # shown as text in a table


def test_code_mixing_without_final_translations_says_so_and_uses_every_translation(project_db):
    set_text(project_db, "r2", "aware", "asha", MIXED)
    at = open_dashboard(project_db)
    at.toggle(key="dash_codemix").set_value(True).run()
    assert not at.exception
    assert any("No final translations chosen yet" in t for t in texts(at))
    row = frame_with(at, "cmi_all").iloc[0]
    # 6 submitted translations (r1: 3 aware + 2 blind, r2: asha's aware), one mixed with CMI 40 (no glossary).
    assert (row["sentences"], row["code_mixed"]) == (6, 1)
    assert row["cmi_all"] == pytest.approx(40 / 6)
    assert row["cmi_mixed"] == pytest.approx(40.0)


def test_spelling_tolerant_rouge_sits_beside_the_raw_figure_with_the_pairs_it_moved(project_db):
    # bilal writes स्टाफ without the nukta: raw asha-bilal 4/7, spelling-tolerant 6/7 (see test_phonetic).
    set_text(project_db, "r1", "aware", "bilal", "स्टाफ बहुत बुरा था।")
    at = open_dashboard(project_db)
    assert not has_frame_with(at, "normalized_f")
    at.toggle(key="dash_spelling").set_value(True).run()
    assert not at.exception
    weight_aware, weight_blind = 6 + Fraction(10, 3), Fraction(9)
    raw_aware, tolerant_aware = Fraction(25, 63), Fraction(31, 63)

    def overall(aware: Fraction) -> float:
        return float((aware * weight_aware + weight_blind) / (weight_aware + weight_blind))

    figures = next(df.value for df in at.dataframe
                   if "ROUGE-L F, spelling-tolerant" in df.value.get("figure", pd.Series()).tolist()).set_index("figure")
    raw, tolerant = figures.loc["ROUGE-L F, raw (official)"], figures.loc["ROUGE-L F, spelling-tolerant"]
    assert raw["aware"] == pytest.approx(float(raw_aware))
    assert tolerant["aware"] == pytest.approx(float(tolerant_aware))
    assert raw["blind"] == tolerant["blind"] == pytest.approx(1.0)
    assert raw["overall"] == pytest.approx(overall(raw_aware))
    assert tolerant["overall"] == pytest.approx(overall(tolerant_aware))
    assert table2(at).loc[ROUGE, "aware"] == f"{float(raw_aware):.3f}"  # official = raw
    changes = frame_with(at, "normalized_f")
    assert len(changes) == 1
    pair = changes.iloc[0]
    assert (pair["translator_a"], pair["translator_b"]) == ("asha", "bilal")
    assert pair["raw_f"] == pytest.approx(4 / 7) and pair["normalized_f"] == pytest.approx(6 / 7)
    assert pair["variants"] == "स्टाफ़ = स्टाफ"
    shown = "\n".join(texts(at))
    assert "stays the official one" in shown
    assert "1 of 4 translation pairs change score" in shown


def set_source(engine, sentence: str, text: str) -> None:
    with Session(engine) as session:
        session.scalars(select(SourceSentence).where(SourceSentence.sentence_id == sentence)).one().text = text
        session.commit()


def test_code_mixing_tags_names_of_the_english_source_as_the_export_does(project_db):
    # "मुझे Brooklyn का पिज़्ज़ा पसंद है।" for "Brooklyn pizza is what I love": Brooklyn opens the source and is
    # no common word, so it is ne: n 7, u 2, max 5 -> CMI 0 (16.7 if Brooklyn counted as English).
    set_source(project_db, "r2", "Brooklyn pizza is what I love")
    set_text(project_db, "r2", "aware", "asha", "मुझे Brooklyn का पिज़्ज़ा पसंद है।")
    choose_final(project_db, "r2", "aware", "asha")
    at = open_dashboard(project_db)
    at.toggle(key="dash_codemix").set_value(True).run()
    assert not at.exception
    row = frame_with(at, "cmi_all").iloc[0]
    assert (row["sentences"], row["code_mixed"], row["cmi_all"]) == (1, 0, 0.0)
    assert frame_with(at, "meaning").set_index("tag")["tokens"].to_dict() == {"lang1": 0, "lang2": 5, "ne": 1, "other": 1}


def test_clearing_the_domain_filter_keeps_the_final_translations_in_view(project_db):
    choose_final(project_db, "r1", "blind", "asha")
    at = open_dashboard(project_db)
    at.toggle(key="dash_codemix").set_value(True)
    at.multiselect(key="dash_domains").set_value([]).run()
    assert not at.exception
    shown = "\n".join(texts(at))
    assert "No final translations chosen yet" not in shown
    assert "Over the final translation of each sentence: 1 of 2 sentences" in shown
    at.multiselect(key="dash_domains").set_value(["laptop"]).run()  # r2: no final translation
    shown = "\n".join(texts(at))
    assert "No final translations chosen yet" not in shown
    assert "None of the 1 sentences in this filter has a final translation yet (1 in the project)" in shown


def test_the_kappa_figures_say_once_whether_annotators_saw_suggestions(project_db):
    at = open_dashboard(project_db)
    said = [c.value for c in at.caption if "suggestions and kappa: " in c.value.lower()]
    assert said == ["Suggestions and kappa: annotators saw no suggestions (0 items with a record of what was shown)."]


def test_table_2_shows_every_registered_figure_krippendorffs_alpha_too(project_db):
    """Alpha came in as one module and one registry line: the page shows its row with no edit of its own.
    With 2 annotators alpha = 1 - (n - 1) / n * (1 - Fleiss' kappa) over n = 2 x tokens (hand-derived)."""
    from corpus.metrics import compute_agreement
    from db.metrics_data import load_metrics_input

    at = open_dashboard(project_db)
    assert not at.exception
    t2 = table2(at)
    with Session(project_db) as session:
        project = session.scalars(select(SourceSentence.project_id)).first()
    fleiss = compute_agreement(load_metrics_input(project_db, project)).fleiss_kappa

    def alpha(kappa: float, tokens: int) -> str:
        n = 2 * tokens
        return f"{1 - (n - 1) / n * (1 - kappa):.3f}"

    assert t2.loc["Krippendorff's alpha"].tolist() == [
        alpha(43 / 59, fleiss["aware"]["items"]), "—", alpha(13 / 17, fleiss["overall"]["items"]), "—"]
    method = next(e for e in at.expander if e.label == "How these figures are computed")
    inside = "\n".join(c.value for c in method.caption)
    assert "Krippendorff's alpha: annotators' agreement" in inside
    assert "Krippendorff's alpha blind: every annotator gave every item the same label (O)" in inside
