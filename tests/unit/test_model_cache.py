"""Built models kept on disk (corpus.model_cache): read back only when nothing they were built from has changed."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from corpus import model_cache, romanization, word_context


class Builds:
    """A build function that counts its calls and returns what the source file says."""

    def __init__(self, source: Path):
        self.source, self.calls = source, 0

    def __call__(self) -> dict:
        self.calls += 1
        return {"built from": self.source.read_text(), "tables": [(1, 2.5), (3, 4.5)]}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "data.tsv"
    path.write_text("a\t1\n")
    return path


def test_a_changed_source_changes_the_key(tmp_path, source):
    code = tmp_path / "builder.py"
    code.write_text("X = 1\n")
    key = model_cache.cache_key([source, code])
    assert model_cache.cache_key([source, code]) == key
    source.write_text("a\t2\n")
    changed_data = model_cache.cache_key([source, code])
    code.write_text("X = 2\n")
    changed_code = model_cache.cache_key([source, code])
    assert len({key, changed_data, changed_code}) == 3


def test_a_missing_source_and_an_empty_one_have_different_keys(tmp_path):
    missing = model_cache.cache_key([tmp_path / "absent.tsv"])
    (tmp_path / "absent.tsv").write_bytes(b"")
    assert model_cache.cache_key([tmp_path / "absent.tsv"]) != missing


def test_a_cached_object_is_built_once_then_read_back_equal(tmp_path, source):
    build = Builds(source)
    first = model_cache.cached("model", [source], build, directory=tmp_path / "cache")
    second = model_cache.cached("model", [source], build, directory=tmp_path / "cache")
    assert build.calls == 1
    assert second == first and second is not first


def test_a_changed_source_is_built_again_never_read_stale(tmp_path, source):
    build = Builds(source)
    model_cache.cached("model", [source], build, directory=tmp_path)
    source.write_text("a\t2\n")
    assert model_cache.cached("model", [source], build, directory=tmp_path)["built from"] == "a\t2\n"
    assert build.calls == 2


def test_a_damaged_file_is_built_again_and_replaced(tmp_path, source):
    build = Builds(source)
    model_cache.cached("model", [source], build, directory=tmp_path)
    (cached_file,) = tmp_path.glob("model-*.pickle")
    cached_file.write_bytes(cached_file.read_bytes()[:10])
    assert model_cache.cached("model", [source], build, directory=tmp_path)["built from"] == "a\t1\n"
    assert model_cache.cached("model", [source], build, directory=tmp_path)["built from"] == "a\t1\n"
    assert build.calls == 2


def test_a_file_others_may_write_is_never_unpickled(tmp_path, source):
    build = Builds(source)
    model_cache.cached("model", [source], build, directory=tmp_path)
    (cached_file,) = tmp_path.glob("model-*.pickle")
    os.chmod(cached_file, 0o666)
    model_cache.cached("model", [source], build, directory=tmp_path)
    assert build.calls == 2


def test_an_unwritable_cache_still_gives_the_built_object(tmp_path, source):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    build = Builds(source)
    assert model_cache.cached("model", [source], build, directory=blocked / "cache")["built from"] == "a\t1\n"


def test_the_data_licences_and_a_notice_lie_next_to_the_derived_file(tmp_path, source):
    licence = tmp_path / "data.LICENSE"
    licence.write_text("CC BY-SA 4.0, credit: the authors\n")
    model_cache.cached("model", [source, tmp_path / "builder.py"], Builds(source), licences=[licence],
                       directory=tmp_path / "cache")
    assert (tmp_path / "cache" / "data.LICENSE").read_text() == licence.read_text()
    notice = (tmp_path / "cache" / "model.NOTICE").read_text()
    assert "data.tsv" in notice and "data.LICENSE" in notice and "builder.py" not in notice


def test_only_the_newest_files_of_a_name_are_kept(tmp_path, source):
    build = Builds(source)
    for n in range(model_cache.KEEP + 2):
        source.write_text(f"a\t{n}\n")
        model_cache.cached("model", [source], build, directory=tmp_path)
        for i, path in enumerate(sorted(tmp_path.glob("model-*.pickle"), key=lambda p: p.stat().st_mtime)):
            os.utime(path, (i, i))  # the file just written is the newest, whatever the clock's resolution
    assert len(list(tmp_path.glob("model-*.pickle"))) == model_cache.KEEP


def test_caching_is_off_when_the_environment_says_so(monkeypatch, source):
    monkeypatch.setenv(model_cache.CACHE_ENV, "off")
    build = Builds(source)
    model_cache.cached("model", [source], build)
    model_cache.cached("model", [source], build)
    assert build.calls == 2 and model_cache.cache_dir() is None


def test_the_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(model_cache.CACHE_ENV, str(tmp_path / "mine"))
    assert model_cache.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(model_cache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model_cache.cache_dir() == tmp_path / "xdg" / model_cache.CACHE_NAME


def test_the_typing_models_keys_cover_their_data_and_the_modules_that_build_them(monkeypatch):
    asked = {}

    def record(name, sources, build, licences=(), directory=None):
        asked[name] = ([Path(s).resolve() for s in sources], [Path(lic).name for lic in licences], build)
        return None

    monkeypatch.setattr(model_cache, "cached", record)
    romanization.load_model.cache_clear()
    word_context.load_context_model.cache_clear()
    try:
        romanization.load_model()
        word_context.load_context_model()
    finally:
        romanization.load_model.cache_clear()
        word_context.load_context_model.cache_clear()
    sources, licences, build = asked["romanization"]
    assert set(sources) >= {romanization.MODEL_PATH, romanization.LEXICON_PATH, romanization.PRONUNCIATIONS_PATH,
                            Path(romanization.__file__).resolve()}
    assert licences == ["romanization.LICENSE"] and build is romanization.build_model
    sources, licences, build = asked["hi_bigrams"]
    assert set(sources) >= {word_context.BIGRAMS_PATH, Path(word_context.__file__).resolve()}
    assert licences == ["hi_bigrams.LICENSE"] and build is word_context.build_context_model


def _ask_for_the_model(directory: str, source: str, counter: str, start, results) -> None:
    """One process (a server or a test worker starting): asks for the model once the others are ready too."""
    def build() -> dict:
        with open(counter, "a") as fh:
            fh.write("built\n")
        time.sleep(0.5)  # long enough for the others to find no file and wait
        return {"built from": Path(source).read_text()}

    start.wait()
    results.put(model_cache.cached("model", [Path(source)], build, directory=Path(directory)))


def test_processes_asking_at_once_on_a_fresh_machine_build_the_model_once_and_all_get_it(tmp_path, source):
    context = multiprocessing.get_context("fork")
    start, results, counter = context.Barrier(4), context.Queue(), tmp_path / "builds.txt"
    askers = [context.Process(target=_ask_for_the_model, args=(str(tmp_path / "cache"), str(source), str(counter),
                                                              start, results)) for _ in range(4)]
    for asker in askers:
        asker.start()
    got = [results.get(timeout=60) for _ in askers]
    for asker in askers:
        asker.join(30)
    assert counter.read_text() == "built\n"
    assert got == [{"built from": "a\t1\n"}] * 4


def test_a_build_lock_held_too_long_is_not_waited_for(tmp_path, source, monkeypatch):
    """A builder that hangs (or a lock file left by a stuck process) costs a wait, then this process builds."""
    import fcntl

    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setattr(model_cache, "BUILD_WAIT_S", 0.2)
    with open(folder / ".model.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        build = Builds(source)
        assert model_cache.cached("model", [source], build, directory=folder)["built from"] == "a\t1\n"
    assert build.calls == 1
