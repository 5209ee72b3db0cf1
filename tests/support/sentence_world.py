"""A small hand-built project for the sentence view's tests (db and page): three sentences in corpus order,
two aware and two blind translations of the middle one (one blind marked untranslatable) and a blind task not
started, a skipped task on the first one, two annotators who disagree on one item and agree on another, and a
hostile sentence with a hostile translator's name.

Hand-checked figures: the aware translations' words are [सुशी बहुत अच्छी थी] and [सुशी शानदार थी]; their
LCS is सुशी … थी (2 words), so ROUGE-L F = 2·(2/3·2/4)/(2/3+2/4) = 4/7 for each. Both kept the one aspect,
asha submitted first, so asha's is the aware winner; the blind phase has one translated candidate (no mean),
and the default policy keeps the aware winner: asha's translation is the automatic pick.
"""

from __future__ import annotations

from sqlalchemy import Engine

from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id
from tests.support.translation_fixtures import assign

ASHA = "सुशी बहुत अच्छी थी।"
RAVI = "सुशी शानदार थी।"
UMA = "सुशी अच्छी थी।"
HOSTILE_SOURCE = "<script>alert(1)</script> nice decor"
HOSTILE_HINDI = "<img src=x onerror=alert(2)> सजावट"
HOSTILE_NAME = "<b>mallory</b>"
MEERA_TAGS = ["B", "O", "O", "O", "O"]  # on asha's tokens सुशी बहुत अच्छी थी ।
KIRAN_TAGS = ["O", "O", "O", "O", "O"]
AGREED_TAGS = ["B", "O", "O", "O"]  # on ravi's tokens सुशी शानदार थी ।


def build(engine: Engine) -> dict:
    ids = {name: add_user(engine, name, "translator") for name in ("asha", "ravi", "uma")}
    ids["mallory"] = add_user(engine, HOSTILE_NAME, "translator")
    ids["meera"] = add_user(engine, "meera", "annotator")
    ids["kiran"] = add_user(engine, "kiran", "annotator")
    ids["lead"] = add_user(engine, "lena", "lead")
    ids["s0"] = add_sentence(engine, "10", "Service was slow.", ["Service"], ordinal=0)
    s1 = ids["s1"] = add_sentence(engine, "11", "The sushi was great.", ["sushi"], ordinal=1)
    ids["s2"] = add_sentence(engine, "12", HOSTILE_SOURCE, ["decor"], ordinal=2)
    ids["asha_aware"] = add_translation(engine, s1, "aware", ids["asha"], ASHA, aspect_map={"sushi": "सुशी"})
    ids["ravi_aware"] = add_translation(engine, s1, "aware", ids["ravi"], RAVI, aspect_map={"sushi": "सुशी"},
                                        minutes=1)
    ids["uma_blind"] = add_translation(engine, s1, "blind", ids["uma"], UMA, minutes=2)
    ids["asha_blind"] = add_translation(engine, s1, "blind", ids["asha"], None, untranslatable=True, minutes=3)
    ids["hostile"] = add_translation(engine, ids["s2"], "aware", ids["mallory"], HOSTILE_HINDI)
    assign(engine, ids["ravi"], s1, "blind")  # not started
    assign(engine, ids["uma"], ids["s0"], "aware", status="skipped")
    assign_annotators(engine, project_id(engine), per_item=2)
    for user, tags in ((ids["meera"], MEERA_TAGS), (ids["kiran"], KIRAN_TAGS)):
        view = open_item(engine, user, ids["asha_aware"])
        save_annotation(engine, user, view.item_id, tags, "B" not in tags, None, "submit")
        ids["disputed_item"] = view.item_id
        agreed = open_item(engine, user, ids["ravi_aware"])
        save_annotation(engine, user, agreed.item_id, AGREED_TAGS, False, None, "submit")
        ids["agreed_item"] = agreed.item_id
    return ids
