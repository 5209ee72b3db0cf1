"""Drive the span editor (a components-v2 widget) from AppTest: AppTest renders it but has no API to set
its value, so a test sends the very state the browser would send (one commit naming its item)."""

from __future__ import annotations

import json
from itertools import count

from streamlit.proto.WidgetStates_pb2 import WidgetStates

_seq = count(1)


def editor(at, key: str):
    """The mounted editor with this key (its ``data`` is what the browser gets)."""
    found = [e for e in at.get("bidi_component") if e.key == key]
    assert found, f"no span editor {key!r} on the page: {[e.key for e in at.get('bidi_component')]}"
    return found[0]


def editor_data(at, key: str) -> dict:
    return json.loads(editor(at, key).proto.json)


def commit(at, key: str, action: str, spans=(), rejected=(), item: int | None = None, keys: int | None = None):
    """Send one committed change from the editor ``key``, as the browser does (``keys``: its key count), and
    rerun."""
    element = editor(at, key)
    data = json.loads(element.proto.json)
    seq = max(next(_seq), data["ack"] + 1)
    value = {"item": data["item"] if item is None else item, "seq": seq,
             "actions": [{"seq": seq, "action": action}],
             "spans": [list(s) for s in spans], "rejected": [list(s) for s in rejected]}
    if keys is not None:
        value["keys"] = keys
    states = WidgetStates(widgets=[w for w in at._tree.get_widget_states().widgets if w.id != element.proto.id])
    state = states.widgets.add()
    state.id = element.proto.id
    state.json_value = json.dumps({"commit": value})
    at._run(states)
    assert not at.exception, at.exception
    return at
