"""evaluate: predictions for the test split are checked token by token against the export and scored with
seqeval strict IOB2; a refused file names the sentence; submissions join a leaderboard after the CRF baseline."""

import json

import pytest

from corpus.baseline import LabelledSequence
from corpus.bio import tags_to_spans
from cli.commands import main
from corpus.evaluation import (
    PredictionsRejected,
    evaluate_predictions,
    gold_version,
    plain_tag,
    read_conll,
)
from tests.support.databases import built_copy, replace_with_copy

GOLD = [
    LabelledSequence("restaurant/test/1", "restaurant", "test", ("खाना", "बहुत", "अच्छा", "था", "।"),
                     ("B", "O", "O", "O", "O")),
    LabelledSequence("restaurant/test/2", "restaurant", "test", ("बैटरी", "लाइफ़", "और", "स्क्रीन", "ठीक"),
                     ("B", "I", "O", "B", "O")),
    LabelledSequence("laptop/test/3", "laptop", "test", ("कीबोर्ड", "बुरा", "है"), ("B", "O", "O")),
]


def conll(sentences, ids=False) -> bytes:
    blocks = []
    for s in sentences:
        head = f"# id = {s.key}\n" if ids else ""
        blocks.append(head + "".join(f"{t}\t{g}\n" for t, g in zip(s.tokens, s.tags)))
    return "\n".join(blocks).encode()


def test_predictions_equal_to_gold_score_one():
    result = evaluate_predictions(conll(GOLD), "pred.conll", GOLD)
    assert all(result.scores[d]["f1"] == 1.0 for d in ("restaurant", "laptop", "all"))
    assert result.scores["restaurant"]["test_sentences"] == 2 and result.sentences == 3


def test_a_shifted_span_lowers_the_scores_by_the_hand_computed_amount():
    shifted = list(GOLD)
    # कीबोर्ड (B) moved one token right: 4 gold spans, 4 predicted, 3 right -> P = R = F1 = 3/4 overall;
    # laptop alone: 1 gold, 1 predicted, 0 right -> 0.
    shifted[2] = LabelledSequence("laptop/test/3", "laptop", "test", GOLD[2].tokens, ("O", "B", "O"))
    result = evaluate_predictions(conll(shifted), "pred.conll", GOLD)
    overall = result.scores["all"]
    assert (overall["precision"], overall["recall"], overall["f1"]) == (0.75, 0.75, 0.75)
    assert result.scores["laptop"]["f1"] == 0.0 and result.scores["restaurant"]["f1"] == 1.0


def test_a_span_cut_short_is_wrong_under_strict_matching():
    cut = [GOLD[0], LabelledSequence(GOLD[1].key, "restaurant", "test", GOLD[1].tokens, ("B", "O", "O", "B", "O")),
           GOLD[2]]
    overall = evaluate_predictions(conll(cut), "pred.conll", GOLD).scores["all"]
    assert (overall["precision"], overall["recall"]) == (0.75, 0.75)  # "बैटरी लाइफ़" as "बैटरी": 3 of 4 right


def test_a_file_whose_tokens_differ_is_refused_naming_the_sentence():
    changed = list(GOLD)
    changed[1] = LabelledSequence(GOLD[1].key, "restaurant", "test", ("बैटरी", "लाइफ", "और", "स्क्रीन", "ठीक"),
                                  GOLD[1].tags)  # लाइफ without the nukta
    with pytest.raises(PredictionsRejected) as caught:
        evaluate_predictions(conll(changed), "pred.conll", GOLD)
    [error] = caught.value.errors
    assert error.sentence_id == "restaurant/test/2" and error.line == 7
    assert "token 2 is 'लाइफ', the export has 'लाइफ़'" in error.message


def test_a_sentence_with_a_token_too_many_or_a_missing_sentence_is_refused():
    longer = [GOLD[0], GOLD[1], LabelledSequence(GOLD[2].key, "laptop", "test", (*GOLD[2].tokens, "।"),
                                                 (*GOLD[2].tags, "O"))]
    with pytest.raises(PredictionsRejected) as caught:
        evaluate_predictions(conll(longer), "pred.conll", GOLD)
    assert caught.value.errors[0].sentence_id == "laptop/test/3"
    assert "4 tokens, the export has 3" in caught.value.errors[0].message
    with pytest.raises(PredictionsRejected, match="2 sentences, but the test split has 3"):
        evaluate_predictions(conll(GOLD[:2]), "pred.conll", GOLD)


def test_ids_match_sentences_in_any_order_and_jsonl_works_alike():
    reordered = [GOLD[2], GOLD[0], GOLD[1]]
    assert evaluate_predictions(conll(reordered, ids=True), "pred.conll", GOLD).f1 == 1.0
    lines = [json.dumps({"id": s.key, "tokens": list(s.tokens), "tags": [f"{t}-ASP" if t != "O" else t
                                                                         for t in s.tags]}, ensure_ascii=False)
             for s in reordered]
    result = evaluate_predictions("\n".join(lines).encode(), "pred.jsonl", GOLD)
    assert result.f1 == 1.0 and result.format == "jsonl"
    with pytest.raises(PredictionsRejected, match="no sentence with this id"):
        bad = conll([LabelledSequence("laptop/test/99", "laptop", "test", ("x",), ("O",)), *GOLD], ids=True)
        evaluate_predictions(bad, "pred.conll", GOLD)


def test_an_unknown_tag_is_located():
    sentences, errors = read_conll("खाना\tB\nबहुत\tX-ASP\n".encode(), "pred.conll")
    [error] = errors
    assert error.line == 2 and "unknown tag 'X-ASP'" in error.message
    assert [plain_tag(t) for t in ("b", "I-ASP", "O", "B-aspect", "OUT")] == ["B", "I", "O", "B", None]


def test_the_export_version_changes_with_the_gold():
    changed = [GOLD[0], GOLD[1], LabelledSequence(GOLD[2].key, "laptop", "test", GOLD[2].tokens, ("O", "O", "O"))]
    assert gold_version(GOLD) == gold_version(list(reversed(GOLD)))
    assert gold_version(changed) != gold_version(GOLD)


def test_no_test_split_means_nothing_to_score_against():
    with pytest.raises(PredictionsRejected, match="no test split"):
        evaluate_predictions(conll(GOLD), "pred.conll", [])


# ---------------------------------------------------------------- the command, on a small synthetic project


@pytest.fixture(scope="module")
def built_project(migrated_sqlite, tmp_path_factory):
    """The benchmarks' synthetic project at 2% scale: train and test splits, final translations, gold; built
    once per module, each test's ``project`` a copy of it."""
    from bench.synthetic import build_corpus

    return built_copy(migrated_sqlite, tmp_path_factory.mktemp("project"), lambda engine: build_corpus(engine, 120))


@pytest.fixture
def project(sqlite_url, engine, built_project):
    replace_with_copy(engine, built_project[0])
    return sqlite_url, engine


def _export_test_conll(engine) -> tuple[str, list[LabelledSequence]]:
    from db.baseline_data import gold_test_split
    from db.export_data import ExportOptions, export_files

    files, _ = export_files(engine, ExportOptions(), ["conll"])
    return files["conll/test.conll"], gold_test_split(engine)


def test_the_exported_test_file_as_predictions_scores_one_and_joins_after_the_baseline(project, tmp_path, capsys):
    url, engine = project
    text, gold = _export_test_conll(engine)
    assert len(gold) > 10
    pred = tmp_path / "pred.conll"
    pred.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["--db", url, "evaluate", str(pred), "--name", "team gold", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"]["all"]["f1"] == 1.0 and out["export_version"] == gold_version(gold)
    assert [r["kind"] for r in out["leaderboard"]] == ["baseline", "submission"]
    assert out["leaderboard"][0]["name"] == "CRF baseline" and out["leaderboard"][1]["name"] == "team gold"
    assert set(out["scores"]) == {"restaurant", "laptop", "all"}


def test_a_shifted_span_in_the_export_scores_lower_by_one_span_in_all(project, tmp_path, capsys):
    url, engine = project
    _, gold = _export_test_conll(engine)
    spans = sum(len(tags_to_spans(g.tags)) for g in gold)
    # Shift the first single-token span whose right neighbour is O and not the sentence end.
    shifted, done = [], False
    for g in gold:
        tags = list(g.tags)
        if not done:
            for i in range(len(tags) - 1):
                if tags[i] == "B" and tags[i + 1] == "O" and (i + 2 == len(tags) or tags[i + 2] != "I"):
                    tags[i], tags[i + 1] = "O", "B"
                    done = True
                    break
        shifted.append(LabelledSequence(g.key, g.domain, g.split, g.tokens, tuple(tags)))
    assert done
    pred = tmp_path / "shifted.conll"
    pred.write_bytes(conll(shifted))
    capsys.readouterr()
    assert main(["--db", url, "evaluate", str(pred), "--name", "shifted", "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["scores"]["all"]
    assert overall["f1"] == pytest.approx((spans - 1) / spans)
    assert overall["precision"] == pytest.approx((spans - 1) / spans)


def test_the_command_refuses_other_tokens_naming_the_sentence_and_stores_nothing(project, tmp_path, capsys):
    from db.baseline_data import leaderboard

    url, engine = project
    _, gold = _export_test_conll(engine)
    wrong = list(gold)
    wrong[3] = LabelledSequence(gold[3].key, gold[3].domain, "test", ("गलत", *gold[3].tokens[1:]), gold[3].tags)
    pred = tmp_path / "wrong.conll"
    pred.write_bytes(conll(wrong))
    assert main(["--db", url, "evaluate", str(pred), "--name", "team wrong"]) == 1
    err = capsys.readouterr().err
    assert f"sentence {gold[3].key}: token 1 is 'गलत'" in err and "nothing was written" in err
    assert leaderboard(engine) == []


def test_the_command_refuses_a_file_over_the_cap_by_its_size_and_stores_nothing(project, tmp_path, capsys):
    """A 101 MB predictions file (sparse: no disk used) is refused from its size, located, before reading."""
    from corpus.evaluation import MAX_PREDICTIONS_BYTES
    from db.baseline_data import leaderboard

    url, engine = project
    pred = tmp_path / "huge.conll"
    with pred.open("wb") as f:
        f.write(b"x\tO\n")
        f.truncate(101 * 1024 * 1024)
    assert pred.stat().st_size > MAX_PREDICTIONS_BYTES
    assert main(["--db", url, "evaluate", str(pred), "--name", "too big"]) == 1
    err = capsys.readouterr().err
    assert f"{pred}:1 sentence (none): the file is 101.0 MB; a predictions file is at most 32.0 MB" in err
    assert leaderboard(engine) == []
