"""The translation editor's pure JS helpers (ui/components/translation_editor/text.js and typing.js) under
node (``node --test``), against the Python: the ported tokenizer gives the same tokens as corpus.tokens on
Hindi samples (so a token index means the same word in the browser and on the server), the map follows its
words over an edit as corpus.aspect_map.relocate does, and the guideline says what the typing rules do.
The rules alone (context, danda, braces, word conversion) are tests/js/translation_editor.test.mjs."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from corpus.aspect_map import relocate
from corpus.tokens import tokenize_with_offsets
from ui.components import HERE

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

SAMPLES = [
    "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।",
    "इस Lenovo की बैटरी लाइफ़ बहुत अच्छी है।",
    "टेबल पर टेबल रखी थी, और खाना ठंडा था!",
    "स्क्रीन\u200cशॉट में क्या है? ३ बार देखा…",
    "Joe's पिज़्ज़ा — 3.5/5 “अच्छा”",
    "क़िला ख़ूबसूरत है।",  # decomposed nukta: NFC first
    "  हम्म   ठीक\tहै \n नया\u200dवाक्य  ",
    "मेरा कीबोर्ड बहुत अच्छा है 🙂 सच में",
    "",
]


def run_node(tmp_path, body: str) -> subprocess.CompletedProcess:
    """``body`` as a node test, with the editor's text rules as ``h`` and its typing state as ``t`` (the files
    the browser gets, imported from ui/components)."""
    folder = HERE / "translation_editor"
    test = tmp_path / "helpers.test.mjs"
    test.write_text("import test from 'node:test';\nimport assert from 'node:assert/strict';\n"
                    f"import * as h from {json.dumps((folder / 'text.js').as_uri())};\n"
                    f"import * as t from {json.dumps((folder / 'typing.js').as_uri())};\n" + body, encoding="utf-8")
    return subprocess.run([NODE, "--test", str(test)], capture_output=True, text=True, timeout=60)


def test_the_browsers_tokens_are_the_servers_tokens_on_hindi_samples(tmp_path):
    expected = [[t.text for t in tokenize_with_offsets(s)] for s in SAMPLES]
    body = (f"const samples = {json.dumps(SAMPLES)};\nconst expected = {json.dumps(expected, ensure_ascii=False)};\n"
            "test('tokens', () => { samples.forEach((s, i) => assert.deepEqual(h.tokenize(s).map((t) => t.text), "
            "expected[i], s)); });\n"
            "test('offsets point at the tokens', () => { for (const s of samples) { const n = s.normalize('NFC'); "
            "for (const t of h.tokenize(s)) assert.equal(n.slice(t.start, t.end), t.text); } });\n")
    done = run_node(tmp_path, body)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_map_follows_its_words_over_an_edit_as_the_server_does(tmp_path):
    cases = [
        (["टेबल", "पर", "टेबल"], [0, 1], ["नई", "टेबल", "पर", "टेबल"]),
        (["टेबल", "पर", "टेबल"], [2, 3], ["नई", "टेबल", "पर", "टेबल"]),
        (["बैटरी", "लाइफ़", "अच्छी"], [0, 2], ["बैटरी", "की", "लाइफ़"]),
        (["a", "b", "c", "b", "c"], [3, 5], ["b", "c", "x", "b", "c"]),
    ]
    expected = []
    for old, span, new in cases:
        run = relocate(old, range(*span), new)
        expected.append([run[0], run[-1] + 1] if run else None)
    body = (f"const cases = {json.dumps(cases, ensure_ascii=False)};\nconst expected = {json.dumps(expected)};\n"
            "test('relocate', () => { cases.forEach(([o, s, n], i) => assert.deepEqual(h.relocate(o, s, n), "
            "expected[i])); });\n")
    done = run_node(tmp_path, body)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_translation_guideline_says_what_the_editor_does_with_names_and_stops(tmp_path):
    """Guideline 1's typing recipe and the danda line, run through the editor's own rules."""
    import re
    from pathlib import Path

    from ui.translation_editor import KEYS_HELP

    text = (Path(__file__).resolve().parents[2] / "guidelines" / "translation.md").read_text(encoding="utf-8")
    typed, kept = re.search(r"`(\{[^`]+\})` becomes `([^`]+)`", text).groups()
    stop = re.search(r"Typing `(.)` or `(.)` after the last word ends the sentence with the danda `(.)`", text)
    assert stop and stop.group(3) == "\u0964"
    assert any(k.startswith("{") for k, _ in KEYS_HELP) and any(k.startswith(". or |") for k, _ in KEYS_HELP)
    assert "the last entry of the list" in text and "Esc" in text
    body = (f"test('braces', () => {{ const b = h.bracedWord('मेरा ' + {json.dumps(typed)}); "
            f"assert.equal(b.inner, {json.dumps(kept)}); assert.equal(b.start, 5); }});\n"
            "test('a stop after a word is a danda', () => { assert.equal(h.endsSentence('ा'), true); "
            "assert.equal(h.endsSentence('l'), true); });\n"
            # the editor turns both keys into the danda (the input handler's rule), with the setting on
            f"test('both stop keys', () => {{ for (const k of {json.dumps(list(stop.group(1, 2)))}) {{ "
            "assert.equal(t.becomesDanda(k, 'मेरा' + k, 5, true), true, k); "
            "assert.equal(t.becomesDanda(k, 'मेरा' + k, 5, false), false, k); } });\n")
    done = run_node(tmp_path, body)
    assert done.returncode == 0, done.stdout + done.stderr
    from ui.translation_editor import _JS

    assert "becomesDanda(ch, " in _JS  # the input handler asks that rule
