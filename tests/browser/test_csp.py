"""The pages work under the server's strict Content-Security-Policy (issue 15 item 7): the lobby,
the calculator, the table companion and a game page open without the harness's CSP bypass, report
no CSP violation and no page error, and the game page's WebSocket (same origin) connects and
syncs."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urljoin

from browser.kit import LiveServer, new_game, open_page

RECORD = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));"""


def _until(page: Any, js: str, timeout: float = 20.0) -> Any:
    """Poll ``js`` (a function) with page.evaluate: unlike wait_for_function it needs no eval."""
    deadline = time.monotonic() + timeout
    while True:
        got = page.evaluate(js)
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_pages_work_under_the_csp(live_server: LiveServer, new_context: Any) -> None:
    res = new_game(live_server, {"board": "scotland", "players": 2,
                                 "seats": [{"kind": "human"}, {"kind": "normal"}]})
    urls = ["/", "/calculator", "/table?lang=en", "/signin", "/account", "/unsubscribe#u=none",
            "/leaderboard", "/players/Nobody",
            res["links"]["seats"][0]["url"]]
    for url in urls:
        ctx = new_context(bypass_csp=False)
        ctx.add_init_script(RECORD)
        # The lobby's links are absolute (built from the request's address); the rest are paths.
        page = open_page(ctx, urljoin(live_server.url, url))
        if "/game/" in url:
            assert _until(page, "() => typeof window.rebirthState?.version === 'number' "
                                "&& window.rebirthState.version >= 0"), url
        assert page.evaluate("() => window.__csp") == [], url
        assert page.errors == [], (url, page.errors)  # type: ignore[attr-defined]
