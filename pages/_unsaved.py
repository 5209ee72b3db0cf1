"""Text typed but not yet saved survives a refresh: the browser keeps it, the page offers it back.

A Streamlit text area sends its value only on Ctrl+Enter or when it loses focus, so a refresh (or a
closed tab) in the middle of typing would lose what was typed since. This small component, mounted
beside the editor, copies every keystroke's text into the browser's localStorage (no rerun, no
network while typing) together with the stored text it was typed on top of. When the page opens
again and the browser holds text typed on top of exactly what is stored now, it offers to restore
it; the page then saves it as a draft. Text typed on top of a version the server has since moved
past (a later save, another tab) is never offered, so it cannot overwrite newer work. User text only ever reaches the DOM as ``textContent``, never as HTML.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_JS = """
export default function ({ parentElement, data, setTriggerValue }) {
  const storeKey = "corpus-tool:unsaved-text:" + data.task;
  const editor = 'textarea[aria-label="' + data.label + '"]';
  const remember = (event) => {
    const target = event.target;
    if (target && target.matches && target.matches(editor)) {
      localStorage.setItem(storeKey, JSON.stringify({ text: target.value, saved: data.saved }));
    }
  };
  document.addEventListener("input", remember, true);

  parentElement.querySelectorAll(".unsaved-offer").forEach((old) => old.remove());
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (e) { kept = null; }
  if (kept && typeof kept.text === "string" && kept.text !== data.saved && kept.saved === data.saved) {
    const box = document.createElement("div");
    box.className = "unsaved-offer";
    box.style.cssText = "font-size:0.95rem;background:#fff4dc;border:1px solid #c77700;border-radius:8px;" +
      "padding:8px 12px;margin:4px 0;";
    const note = document.createElement("span");
    note.textContent = "This browser kept " + kept.text.length + " characters you typed here after the last save. ";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Restore unsaved text";
    button.style.cssText = "margin-left:8px;padding:3px 12px;border-radius:8px;border:1px solid #c77700;" +
      "background:white;cursor:pointer;font:inherit;";
    button.onclick = () => {
      localStorage.removeItem(storeKey);
      setTriggerValue("restore", kept.text);
    };
    box.append(note, button);
    parentElement.append(box);
  } else if (kept && kept.text === data.saved) {
    localStorage.removeItem(storeKey);  // saved since: nothing to offer
  }  // typed on top of another stored version (a later save, another tab): not offered, never written back
  // Text typed before this component was mounted (a slow page) is kept too.
  const area = document.querySelector(editor);
  if (area && area.value && area.value !== data.saved) {
    localStorage.setItem(storeKey, JSON.stringify({ text: area.value, saved: data.saved }));
  }
  return () => document.removeEventListener("input", remember, true);
}
"""

_component = st.components.v2.component("corpus_tool_unsaved_text", js=_JS)


def unsaved_text_guard(key: str, task: str, editor_label: str, saved_text: str,
                       on_restore: Callable[[str], None]) -> None:
    """Mount the guard for one task's editor; ``on_restore`` gets the text the browser kept."""

    def restore() -> None:
        text = getattr(st.session_state.get(key), "restore", None)
        if isinstance(text, str):
            on_restore(text)

    _component(key=key, data={"task": task, "label": editor_label, "saved": saved_text},
               on_restore_change=restore)
