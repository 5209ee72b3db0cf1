"""A hand-built project for the final-translation decision view (AppTests and the browser test)."""

from __future__ import annotations

from sqlalchemy import Engine

from tests.support.tagging_fixtures import add_sentence, add_translation, add_user


def build(engine: Engine) -> dict:
    """Five sentences in corpus order (s5 untranslated). Nothing is in force, so by hand:
    undecided s1, s2, s3 (3); marked untranslatable s3, s4 (2); overridden none; all s1..s4 (4).

    s1 has three aware candidates and one blind: its automatic pick is ravi's aware translation (the highest
    mean ROUGE-L of the aware phase; the aware winner keeps more aspects than the blind one).
    """
    ids = {name: add_user(engine, name, "translator") for name in ("asha", "ravi", "uma", "dev")}
    ids["lead"] = add_user(engine, "lena", "lead")
    s = [add_sentence(engine, "7", "The sushi and the miso soup were great.", ["sushi", "miso soup"], ordinal=1),
         add_sentence(engine, "8", "The waiter was rude.", ["waiter"], ordinal=2),
         add_sentence(engine, "9", "It was a piece of cake.", [], ordinal=3),
         add_sentence(engine, "10", "Raining cats and dogs.", [], ordinal=4),
         add_sentence(engine, "11", "Never translated.", [], ordinal=5)]
    ids["s"] = s
    both = {"sushi": "सुशी", "miso soup": "मिसो सूप"}
    ids["a1"] = add_translation(engine, s[0], "aware", ids["asha"], "सुशी और मिसो सूप बहुत अच्छे थे।", aspect_map=both)
    ids["a2"] = add_translation(engine, s[0], "aware", ids["ravi"], "सुशी और मिसो सूप शानदार थे।", aspect_map=both,
                                minutes=1)
    ids["a3"] = add_translation(engine, s[0], "aware", ids["uma"], "सुशी और सूप बढ़िया थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": None}, minutes=2)
    ids["b1"] = add_translation(engine, s[0], "blind", ids["dev"], "सुशी और मिसो सूप बहुत अच्छे थे।", minutes=3)
    ids["s2a"] = add_translation(engine, s[1], "aware", ids["asha"], "वेटर बदतमीज़ था।", aspect_map={"waiter": "वेटर"})
    ids["s3a"] = add_translation(engine, s[2], "aware", ids["asha"], "यह बहुत आसान था।")
    ids["s3u"] = add_translation(engine, s[2], "blind", ids["dev"], None, untranslatable=True, minutes=1)
    ids["s4u"] = add_translation(engine, s[3], "blind", ids["dev"], None, untranslatable=True)
    return ids
