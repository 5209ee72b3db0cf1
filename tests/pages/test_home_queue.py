"""Home as the lead's work queue, pinned against a hand-built project: every count checked by hand, each
a link to the page that handles it with the filter in its query parameters; and each role's Home shows
only what that role can act on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from db.engine import transaction
from db.final_choice import choose, record_auto_choices
from db.models import AnnotationAssignment, TranslationAssignment
from db.reopen import decline, request_reopen
from db.workflows import open_item, reopen, save_annotation
from db.assignment import assign_annotators
from tests.support.app_pages import built_once, copied, open_page
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
)

NOW = datetime.now(UTC).replace(tzinfo=None)
HINDI = "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।"  # 7 tokens: लेकिन स्टाफ़ सर्विस बहुत बुरी थी ।
AGREED = "खाना अच्छा था।"  # 4 tokens


def task(engine, user: int, sentence: int, phase: str, status: str, days_ago: float) -> int:
    with transaction(engine) as session:
        row = TranslationAssignment(user_id=user, sentence_id=sentence, phase=phase, status=status,
                                    created_at=NOW - timedelta(days=days_ago))
        session.add(row)
        session.flush()
        return row.id


def tagging_task(engine, user: int, translation: int, days_ago: float) -> None:
    with transaction(engine) as session:
        session.add(AnnotationAssignment(user_id=user, translation_id=translation,
                                         created_at=NOW - timedelta(days=days_ago)))


def build(engine) -> dict:
    """Six sentences. What waits, counted by hand (the expected labels below):

    - disagreements: s1's aware translation, meera and kiran differ on one token -> 1 (s2's agree);
    - without a final translation: translated s1, s2, s4, s5; the rule's pick recorded for s1 and s2,
      the lead chose for s5 -> s4 only -> 1;
    - untranslatable to review: marked on s3 and s5; s5 decided by the lead -> s3 only -> 1;
    - not assigned, blind: tasks on s3 (ravi, asha), s4 (ravi, asha), s5 (ravi); s6's only blind task was
      reassigned -> s1, s2, s6 -> 3;
    - not assigned, aware: tasks on s1, s2, s5 (asha) and s6 (ravi) -> s3, s4 -> 2;
    - overdue translation work: asha's open blind tasks on s3 (10 days) and s4 (draft, 9 days); ravi's
      aware s6 is 2 days old; priya's is reassigned -> 1 translator, 2 tasks;
    - overdue tagging work: meera's task on s4's translation (10 days); kiran's is 1 day old -> 1, 1 task;
    - reopen requests: ravi's on his blind s4 and kiran's on his s2 annotation wait; meera's on her s1
      annotation was declined -> 2.
    """
    ids = {
        "lead": add_user(engine, "lena", "lead"),
        "asha": add_user(engine, "asha", "translator"),
        "ravi": add_user(engine, "ravi", "translator"),
        "priya": add_user(engine, "priya", "translator"),
        "meera": add_user(engine, "meera", "annotator"),
        "kiran": add_user(engine, "kiran", "annotator"),
        "root": add_user(engine, "root", "admin"),
    }
    s = {i: add_sentence(engine, f"s{i}", f"But the staff service was bad {i}.", ["staff service"], ordinal=i)
         for i in range(1, 7)}
    pid = project_id(engine)
    t1 = add_translation(engine, s[1], "aware", ids["asha"], HINDI)
    t2 = add_translation(engine, s[2], "aware", ids["asha"], AGREED)
    assign_annotators(engine, pid, per_item=2)
    for user, tags in ((ids["meera"], ["O", "B", "I", "O", "O", "O", "O"]),
                       (ids["kiran"], ["O", "B", "O", "O", "O", "O", "O"])):
        view = open_item(engine, user, t1)
        ids[f"a1_{user}"] = save_annotation(engine, user, view.item_id, tags, False, None, "submit").annotation_id
        agreed = open_item(engine, user, t2)
        ids[f"a2_{user}"] = save_annotation(engine, user, agreed.item_id, ["B", "O", "O", "O"], False, None,
                                            "submit").annotation_id
    assert record_auto_choices(engine, pid) == 2  # s1, s2
    add_translation(engine, s[3], "blind", ids["ravi"], None, untranslatable=True)
    ids["t4"] = add_translation(engine, s[4], "blind", ids["ravi"], "स्टाफ़ सर्विस बुरी थी।")
    add_translation(engine, s[5], "blind", ids["ravi"], None, untranslatable=True)
    t6 = add_translation(engine, s[5], "aware", ids["asha"], "स्टाफ़ सर्विस ख़राब थी।")
    choose(engine, s[5], t6, ids["lead"], expected=None)
    for user, sentence, phase, status, days in (
        ("asha", 1, "aware", "submitted", 10), ("asha", 2, "aware", "submitted", 10),
        ("ravi", 3, "blind", "submitted", 10), ("ravi", 4, "blind", "submitted", 10),
        ("ravi", 5, "blind", "submitted", 10), ("asha", 5, "aware", "submitted", 10),
        ("asha", 3, "blind", "assigned", 10), ("asha", 4, "blind", "draft", 9),
        ("ravi", 6, "aware", "assigned", 2), ("priya", 6, "blind", "reassigned", 10),
    ):
        task(engine, ids[user], s[sentence], phase, status, days)
    tagging_task(engine, ids["meera"], ids["t4"], 10)
    tagging_task(engine, ids["kiran"], ids["t4"], 1)
    ids["s4"] = s[4]
    ids["ravi_asks"] = request_reopen(engine, ids["ravi"], "translation", ids["t4"], "a typo")
    request_reopen(engine, ids["kiran"], "annotation", ids[f"a2_{ids['kiran']}"], "missed a word")
    declined = request_reopen(engine, ids["meera"], "annotation", ids[f"a1_{ids['meera']}"], "unsure")
    decline(engine, ids["lead"], declined, "it is right", expected_version=1)
    return ids


EXPECTED = [  # (label, page, query string)
    ("1 disagreement to adjudicate", "adjudicate", "show=open"),
    ("1 sentence without a final translation", "final", "show=undecided"),
    ("1 sentence marked untranslatable to review", "final", "show=untranslatable"),
    ("3 sentences not yet assigned in the blind phase", "assign", "phase=blind&show=unassigned"),
    ("2 sentences not yet assigned in the aware phase", "assign", "phase=aware&show=unassigned"),
    ("1 translator with overdue work (2 tasks)", "assign", "show=overdue&kind=translation"),
    ("1 annotator with overdue work (1 task)", "assign", "show=overdue&kind=tagging"),
    ("2 reopen requests to answer", "reopen", ""),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_sqlite):
    return built_once(tmp_path_factory, migrated_sqlite, build)


@pytest.fixture
def project(template, tmp_path, monkeypatch):
    path, ids = template
    engine = copied(path, tmp_path, monkeypatch)
    yield engine, ids
    engine.dispose()


def links(at: AppTest) -> list[tuple[str, str, str, bool]]:
    """Every page link on the page: (label, page url path, query string, disabled)."""
    return [(p.proto.label, p.proto.page, p.proto.query_string, p.proto.disabled) for p in at.get("page_link")]


def texts(at: AppTest) -> list[str]:
    return [e.value for kind in ("caption", "success", "subheader") for e in getattr(at, kind)]


def test_the_leads_home_counts_every_pending_action_and_links_to_its_filtered_page(project):
    engine, ids = project
    at = open_page(engine, ids["lead"], "pages/home.py")
    assert [(label, page.rsplit("/", 1)[-1], query) for label, page, query, _ in links(at)] == EXPECTED
    assert "Overdue: asha, meera" in texts(at)
    assert any("more than 7 days ago" in t for t in texts(at))  # the rule is said on the page
    assert "Nothing waits for you." not in texts(at) and "Counting disagreements…" not in texts(at)
    assert "Translation" not in texts(at) and "Administration" not in texts(at)  # a lead only


def test_a_decision_takes_its_line_away_at_the_next_run(project):
    engine, ids = project
    at = open_page(engine, ids["lead"], "pages/home.py")
    choose(engine, ids["s4"], ids["t4"], ids["lead"], expected=None)
    at.run()
    assert [label for label, *_ in links(at)] == [label for label, *_ in EXPECTED if "final" not in label]


def test_answering_a_reopen_request_takes_one_off_its_count_at_the_next_run(project):
    engine, ids = project
    at = open_page(engine, ids["lead"], "pages/home.py")
    reopen(engine, ids["lead"], "translation", ids["t4"], "fix the typo", expected_version=1)
    at.run()
    assert ("1 reopen request to answer", "reopen", "") in [
        (label, page.rsplit("/", 1)[-1], query) for label, page, query, _ in links(at)]


def test_a_lead_with_nothing_waiting_is_told_so(app_engine):
    lead = add_user(app_engine, "lena", "lead")
    at = open_page(app_engine, lead, "pages/home.py")
    assert "Nothing waits for you." in [s.value for s in at.success]
    assert not links(at)


def test_an_admin_who_is_no_lead_sees_the_admin_pages_and_no_empty_work_sections(project):
    engine, ids = project
    at = open_page(engine, ids["root"], "pages/home.py")
    assert [label for label, *_ in links(at)] == ["Users: accounts, roles, passwords", "Backup and restore",
                                                  "Project settings"]
    shown = texts(at)
    assert "No translation tasks yet." not in shown and "No tagging tasks yet." not in shown
    assert "Waiting for you" not in shown


def test_a_translator_keeps_their_own_home(project):
    engine, ids = project
    at = open_page(engine, ids["asha"], "pages/home.py")
    # asha's tasks: aware s1, s2, s5 submitted; blind s3 assigned, blind s4 draft
    assert at.get("progress")[0].proto.text == "3 of 5 submitted"
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["To do"], metrics["Drafts"]) == ("1", "1")
    assert "Waiting for you" not in texts(at)
    assert [label for label, *_ in links(at)] == ["Go to my translation queue"]
