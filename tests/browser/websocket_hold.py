"""Hold back what a page sends to the Streamlit server, to test what happens when a save never arrives.

The page talks to the server over one websocket (``/_stcore/stream``); routing it through Playwright
lets a test stop the page's messages at a moment it chooses (the server's answers still arrive), so
"typed, then the tab was reloaded before the save reached the server" is a fact, not a race with the
autosave timer. A new connection (after a reload) starts passing messages again.
"""

from __future__ import annotations

import re


class SendHold:
    def __init__(self, page):
        self.holding = False
        page.route_web_socket(re.compile(r"/_stcore/stream"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.holding = False  # a new page load: its messages go through

        def from_page(message) -> None:
            if not self.holding:
                server.send(message)

        ws.on_message(from_page)

    def hold(self) -> None:
        """From now on, nothing this page sends reaches the server (until the next page load)."""
        self.holding = True
