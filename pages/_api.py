"""Small JSON routes served beside the Streamlit app (``st.App`` custom routes).

A route answers the browser without rerunning a page script, for look-ups made on every keystroke.
Each route checks the caller's session itself: it sits outside Streamlit's page flow.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


ROUTES = [Route("/api/health", health)]
