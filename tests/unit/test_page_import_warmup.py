"""The server imports the pages' libraries in the background, so a first visit does not wait for them."""

import subprocess
import sys
from pathlib import Path

from ui.warmup import page_imports, preload

ROOT = Path(__file__).resolve().parents[2]


def test_the_warmup_lists_every_library_the_pages_import_but_streamlit_and_ui(tmp_path):
    (tmp_path / "a.py").write_text("import altair as alt\nfrom corpus.metrics import x\nimport streamlit as st\n"
                                   "from ui.common import y\nfrom . import z\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import pandas as pd, altair\ndef f():\n    import json\n", encoding="utf-8")
    assert page_imports(tmp_path) == ["altair", "corpus.metrics", "pandas"]


def test_the_real_pages_need_altair_and_the_metrics_and_nothing_from_ui():
    names = page_imports(ROOT / "pages")
    assert {"altair", "pandas", "corpus.metrics", "db.metrics_data"} <= set(names)
    assert not [n for n in names if n.split(".")[0] in ("ui", "streamlit")]


def test_preloading_imports_the_modules_and_reports_the_ones_that_fail():
    code = ("import sys; from ui.warmup import preload; "
            "failed = preload(['colorsys', 'no_such_module_here']); "
            "print(failed, 'colorsys' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['no_such_module_here'] True"


def test_preload_in_a_fresh_process_brings_in_altair():
    code = ("import sys; from pathlib import Path; from ui.warmup import page_imports, preload; "
            "assert 'altair' not in sys.modules; preload(page_imports(Path('pages'))); print('altair' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
