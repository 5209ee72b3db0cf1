"""User and imported strings shown through Markdown, made inert.

Streamlit renders ``st.markdown``, ``st.caption``, ``st.write``, titles, labels, help texts, toasts
and messages as Markdown: an imported ``![x](http://host/p)`` would make every viewer's browser load
that image, ``:red[...]`` or ``$$...$$`` would restyle the page, a ``[link](...)`` would invite a
click. ``md_escape`` turns such a string into plain text for those calls: every character that
Markdown, Streamlit's directives (``:red[``, ``:material/x:``) or LaTeX give a meaning gets a
backslash, and line breaks become spaces unless the caller wants them. Use it on every string that
came from a user or an imported file; text shown with ``st.text``, ``st.code``, ``st.dataframe`` or a
selectbox's options is not Markdown and needs nothing.
"""

from __future__ import annotations

MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()#+-.!|<>~$:=^&\"'")


# Backslashes do not stop GitHub-style autolinks (a bare http://... or www. becomes a link after
# escapes are resolved), so an invisible word joiner is put inside those patterns.
_AUTOLINK_BREAKS = (("://", ":\u2060//"), ("www.", "www\u2060."), ("WWW.", "WWW\u2060."))


def md_escape(text: object, keep_line_breaks: bool = False) -> str:
    """``text`` (any value, shown as ``str``) as Markdown that renders exactly as that text (URLs in
    it carry an invisible word joiner, so they are not made into links)."""
    text = str(text)
    for pattern, broken in _AUTOLINK_BREAKS:
        text = text.replace(pattern, broken)
    escaped = "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in text)
    if keep_line_breaks:
        return escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "  \n")
    return " ".join(escaped.splitlines())
