"""One rule for what an annotation may hold, called by the app's save and the work-file import alike."""

import pytest

from corpus.bio import annotation_refusal


@pytest.mark.parametrize("tags,n,no_aspects,submit,refused", [
    (["O", "B", "I"], 3, False, True, None),
    (["O", "O"], 2, True, True, None),
    (["O", "O"], 2, False, False, None),  # a draft may hold nothing yet
    (["O", "B"], 3, False, False, "2 tags for 3 tokens"),
    (["I", "O"], 2, False, False, "invalid BIO sequence: token 1: I starts the sentence"),
    (["O", "I"], 2, False, False, "invalid BIO sequence: token 2: I follows O"),
    (["O", "X"], 2, False, False, "invalid BIO sequence: token 2: unknown tag 'X' (expected B, I or O)"),
    (["B", "O"], 2, True, False, '"No aspects in this sentence" cannot go with marked aspect spans'),
    (["O", "O"], 2, False, True, 'mark at least one aspect span, or answer "No aspects in this sentence"'),
])
def test_annotation_refusal_names_the_first_broken_rule(tags, n, no_aspects, submit, refused):
    assert annotation_refusal(tags, n, no_aspects=no_aspects, submit=submit) == refused


def test_the_app_and_the_import_call_the_same_rule():
    import db.tagging
    import db.workfile

    assert db.tagging.annotation_refusal is annotation_refusal
    assert db.workfile.annotation_refusal is annotation_refusal
