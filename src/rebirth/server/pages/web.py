"""Where the browser page's files are: the package's own ``web/`` folder, or the folder the
``web_dir`` setting names (a development copy)."""

from __future__ import annotations

from pathlib import Path

from rebirth.server.settings import Settings

WEB = Path(__file__).resolve().parents[2] / "web"
"""The page shipped in the package (owned by the page, not the server)."""


def web_dir(settings: Settings) -> Path:
    """The folder the page is served from."""
    return Path(settings.web_dir) if settings.web_dir else WEB
