"""AppTest: the lead's dashboard on a small project with known figures."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import FinalChoice, GlossaryTerm, SourceSentence, Translation, User
from tests.support.app_pages import open_file
from tests.support.metrics_fixtures import build_small_project, expected_rouge


@pytest.fixture
def project_db(app_engine):
    engine = app_engine
    build_small_project(engine, domain_r2="laptop")
    from db.auth import create_user

    create_user(engine, "lead", {"lead"}, "lead-password")
    return engine


def open_dashboard(engine, username: str = "lead") -> AppTest:
    return open_file(engine, username, "pages/dashboard.py")


def set_blind_text(engine, translator: str, text: str) -> None:
    with Session(engine) as session:
        t = session.scalars(
            select(Translation).join(User, User.id == Translation.translator_id)
            .where((Translation.phase == "blind") & (User.username == translator))
        ).one()
        t.text = text
        session.commit()


def table2(at: AppTest):
    return at.dataframe[0].value.set_index("figure")


def texts(at: AppTest) -> list[str]:
    return [str(e.value) for kind in ("caption", "text", "markdown", "info") for e in getattr(at, kind)]


def test_table_2_shows_the_known_figures_with_an_explanation_each(project_db):
    at = open_dashboard(project_db)
    assert not at.exception
    t2 = table2(at)
    expected = expected_rouge()
    assert t2.loc["ROUGE-L F (weighted)", "aware"] == pytest.approx(expected["aware"])
    assert t2.loc["ROUGE-L F (weighted)", "blind"] == pytest.approx(1.0)
    assert t2.loc["ROUGE-L F (weighted)", "overall"] == pytest.approx(expected["overall"])
    assert t2.loc["ROUGE-L F (weighted)", "best"] == pytest.approx(expected["best"])
    assert t2.loc["Fleiss' kappa (B/I/O tokens)", "aware"] == pytest.approx(43 / 59)
    assert t2.loc["Fleiss' kappa (B/I/O tokens)", "overall"] == pytest.approx(13 / 17)
    shown = "\n".join(texts(at))
    assert "ROUGE-L F: how much two translations" in shown
    assert "Fleiss' kappa: how far annotators agree" in shown
    assert "Fleiss' kappa blind: every annotator gave every item the same label (O)" in shown
    assert "Signature: tok:hi-canon/1.0" in shown


def test_every_table_has_a_csv_download(project_db):
    at = open_dashboard(project_db)
    labels = [b.label for b in at.get("download_button")]
    for name in ("Table 2", "progress per phase", "progress per person", "translators", "annotators",
                 "annotator pairs", "agreement by week", "agreement of all 2 sentence-phase units", "coverage"):
        assert f"CSV: {name}" in labels


def test_on_demand_and_opened_sentence_tables_have_a_csv_download_too(project_db):
    at = open_dashboard(project_db)
    at.toggle(key="dash_codemix").set_value(True)
    at.toggle(key="dash_spelling").set_value(True)
    at.selectbox(key="dash_open").select("restaurant/train/r1 (aware)").run()
    assert not at.exception
    labels = [b.label for b in at.get("download_button")]
    for name in ("CMI summary", "language tags", "CMI per sentence", "ROUGE-L raw and spelling-tolerant",
                 "pairs whose score changes most", "tags on asha's aware translation", "tags on bilal's aware translation"):
        assert f"CSV: {name}" in labels


def test_fleiss_best_cell_reads_not_defined_while_the_column_stays_numeric(project_db):
    import pyarrow as pa

    at = open_dashboard(project_db)
    frame = at.dataframe[0]
    assert frame.value["best"].dtype.kind == "f"  # numbers, for sorting and the CSV
    shown = pa.ipc.open_stream(frame.proto.arrow_data.styler.display_values).read_pandas().set_index("figure")
    assert shown.loc["Fleiss' kappa (B/I/O tokens)", "best"] == "—"
    assert shown.loc["ROUGE-L F (weighted)", "best"] == f"{expected_rouge()['best']:.3f}"
    assert any("kappa is not defined for the chosen translation alone" in t for t in texts(at))


def test_people_tables_show_translator_rouge_and_annotator_kappa(project_db):
    at = open_dashboard(project_db)
    frames = {tuple(df.value.columns): df.value for df in at.dataframe}
    translators = next(v for k, v in frames.items() if "translator" in k and "mean_f" in k)
    chitra = translators[(translators["translator"] == "chitra") & (translators["phase"] == "aware")]
    assert chitra["mean_f"].iloc[0] == pytest.approx(13 / 42)
    annotators = next(v for k, v in frames.items() if "kappa vs others" in k)
    assert annotators.set_index("annotator").loc["meera", "kappa vs others"] == pytest.approx(23 / 30)


def test_coverage_counts_the_sentence_that_lost_its_aspect(project_db):
    at = open_dashboard(project_db)
    metric = at.metric[0]
    assert metric.value == "1 of 1"
    assert any("a sentence lost aspects when" in t for t in texts(at))


def test_opening_a_sentence_shows_its_translations_side_by_side_as_text(project_db):
    set_blind_text(project_db, "asha", "<b>खाना</b> अच्छा था <script>alert(1)</script>")
    at = open_dashboard(project_db)
    options = at.selectbox(key="dash_open").options
    r1 = next(o for o in options if "r1 (blind)" in o)
    at.selectbox(key="dash_open").select(r1).run()
    assert not at.exception
    shown = [t.value for t in at.text]
    assert "But the staff was so horrible" in shown
    assert "<b>खाना</b> अच्छा था <script>alert(1)</script>" in shown  # rendered as text, never markup
    assert not any("<script>" in str(m.value) for m in at.markdown)
    tag_frames = [df.value for df in at.dataframe if "meera" in df.value.index]
    assert tag_frames, "tag sets of the opened sentence are shown"


def test_a_new_save_shows_at_once(project_db):
    at = open_dashboard(project_db)
    assert table2(at).loc["ROUGE-L F (weighted)", "blind"] == pytest.approx(1.0)
    set_blind_text(project_db, "asha", "बिलकुल अलग शब्द")
    at.run()
    assert table2(at).loc["ROUGE-L F (weighted)", "blind"] == pytest.approx(0.0)


def test_filtering_by_domain_recomputes_the_figures(project_db):
    at = open_dashboard(project_db)
    assert "laptop" in at.multiselect(key="dash_domains").options
    at.multiselect(key="dash_domains").set_value(["laptop"]).run()
    assert not at.exception
    t2 = table2(at)
    assert t2.loc["ROUGE-L F (weighted)"].isna().all()  # laptop has only r2: one translation, excluded
    assert any("1 sentence-phase units left out" in t for t in texts(at))


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
    from corpus.metrics import compute_agreement, dashboard_tables
    from db.metrics_data import load_metrics_input

    make_r2_aware_a_pair(project_db)
    at = open_dashboard(project_db)
    assert at.multiselect(key="dash_splits").options == ["test", "train"]
    at.multiselect(key="dash_splits").set_value(["test"]).run()
    assert not at.exception
    t2 = table2(at)
    assert t2.loc["ROUGE-L F (weighted)", "aware"] == pytest.approx(4 / 5)  # r2 alone, by hand
    assert t2.loc["ROUGE-L F (weighted)", "best"] == pytest.approx(4 / 5)
    assert pd.isna(t2.loc["ROUGE-L F (weighted)", "blind"])  # r2 has no blind translation
    with Session(project_db) as session:
        project = session.scalars(select(SourceSentence.project_id)).first()
    data = filter_input(load_metrics_input(project_db, project), ("laptop", "restaurant"), ("test",))
    expected = dashboard_tables(data, compute_agreement(data))
    pd.testing.assert_frame_equal(t2.reset_index(), pd.DataFrame(expected["table2"]), check_dtype=False)
    lowest = frame_with(at, "token_agreement")
    assert lowest[["sentence_id", "phase", "mean_f"]].to_dict("records") == [
        {"sentence_id": r["sentence_id"], "phase": r["phase"], "mean_f": r["mean_f"]} for r in expected["sentences"]]
    assert lowest["sentence_id"].tolist() == ["r2"]
    phases = frame_with(at, "translations submitted").set_index("phase")
    assert phases.loc["aware", "translations submitted"] == 2  # asha and chitra on r2
    assert phases.loc["blind", "translations submitted"] == 0


def test_progress_per_phase_counts_what_was_submitted(project_db):
    # aware: asha, bilal, chitra on r1, asha and chitra (untranslatable) on r2 = 5 of 2 sentences × 4 translators;
    # tagged: meera and nikhil on asha's and bilal's = 4 of 5 × 2 annotators; meera's draft on chitra's.
    # blind: asha and bilal on r1 = 2, chitra's draft = 1.
    at = open_dashboard(project_db)
    phases = frame_with(at, "translations submitted").set_index("phase")
    aware, blind = phases.loc["aware"], phases.loc["blind"]
    assert (aware["translations submitted"], aware["translations expected"]) == (5, 8)
    assert aware["translated %"] == pytest.approx(62.5)
    assert (aware["annotations submitted"], aware["annotation drafts"]) == (4, 1)
    assert aware["tagged % (of submitted translations x K)"] == pytest.approx(40.0)
    assert (blind["translations submitted"], blind["translation drafts"]) == (2, 1)
    assert blind["tagged % (of submitted translations x K)"] == pytest.approx(100.0)


def test_translator_chart_plots_each_translators_mean_rouge(project_db):
    import json

    import pyarrow as pa

    at = open_dashboard(project_db)
    charts = [c.proto for c in at.get("vega_lite_chart")]
    assert len(charts) == 4  # translators, pair histogram, tag histogram, weeks
    chart = next(c for c in charts if json.loads(c.spec)["encoding"]["x"]["field"] == "mean_f")
    data = pa.ipc.open_stream(chart.datasets[0].data.data).read_pandas()
    chitra = data[(data["translator"] == "chitra") & (data["phase"] == "aware")]
    assert chitra["mean_f"].iloc[0] == pytest.approx(13 / 42)
    assert "all" not in set(data["phase"])


def test_lowest_agreement_sentences_come_first(project_db):
    at = open_dashboard(project_db)
    lowest = frame_with(at, "token_agreement")
    assert (lowest.iloc[0]["sentence_id"], lowest.iloc[0]["phase"]) == ("r1", "aware")
    assert lowest["mean_f"].tolist() == pytest.approx([31 / 63, 1.0])


def test_translators_cannot_open_the_dashboard(project_db):
    at = open_dashboard(project_db, "asha")
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
    assert table2(at).loc["ROUGE-L F (weighted)", "aware"] == pytest.approx(float(raw_aware))  # official = raw
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
