"""Every REST answer is declared (issue 24 item 3): the served ``/openapi.json`` gives each
route's 2xx answer a schema that says something (no empty, "any" or bare-object schema) and
each refusal the one error shape (server/errors.py, docs/protocol.md "Errors"); planted routes
without a model, or with a refusal in another shape, are reported. docs/protocol.md's REST
table lists exactly the served routes, and every route another doc names exists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.routing import Mount, Route

from rebirth.server.api.openapi import ERROR_RESPONSES
from rebirth.server.app import create_app
from server import kit

DOCS = Path(__file__).resolve().parents[2] / "docs"
ERROR_REF = "#/components/schemas/ErrorBody"
NOT_REFUSALS = {("GET", "/readyz", "503")}
"""Non-2xx answers that are not refusals: a server that is not ready says why (its own model)."""
MIXED = ("anyOf", "oneOf", "allOf")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    return create_app(kit.settings(tmp_path_factory.mktemp("answers")))


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        ref: str = schema["$ref"]
        node: Any = doc
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _vague(doc: dict[str, Any], schema: dict[str, Any] | None) -> str | None:
    """Why ``schema`` says nothing about an answer (None: it describes one)."""
    if not schema:
        return "no schema (any value)"
    s = _resolve(doc, schema)
    if any(k in s for k in MIXED):
        reasons = [_vague(doc, branch) for k in MIXED for branch in s.get(k, [])]
        bad = [r for r in reasons if r]
        return f"a branch: {bad[0]}" if bad else None
    kind = s.get("type")
    if kind is None and "enum" not in s and "const" not in s:
        return "no type (any value)"
    if kind == "object" and not s.get("properties"):
        return "an object with no declared fields"
    return None


def undeclared(doc: dict[str, Any]) -> list[str]:
    """One line per operation whose 2xx answer has no telling schema, or whose refusals are not
    all in the one error shape (or miss one of those every operation may answer)."""
    out: list[str] = []
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            where = f"{method.upper()} {path}"
            responses: dict[str, Any] = op.get("responses", {})
            ok = {s: r for s, r in responses.items() if s.startswith("2")}
            if not ok:
                out.append(f"{where}: no 2xx answer")
            for status, r in ok.items():
                content = r.get("content") or {}
                if not content:
                    out.append(f"{where} {status}: no content")
                for media, body in content.items():
                    if media.startswith("text/"):
                        if body.get("schema", {}).get("type") != "string":
                            out.append(f"{where} {status} {media}: not a string schema")
                        continue
                    why = _vague(doc, body.get("schema"))
                    if why:
                        out.append(f"{where} {status}: {why}")
            for status in {str(s) for s in ERROR_RESPONSES} - set(responses):
                out.append(f"{where}: refusal {status} not declared")
            for status, r in responses.items():
                if status[0] in "45" and (method.upper(), path, status) not in NOT_REFUSALS:
                    schema = (r.get("content") or {}).get("application/json", {}).get("schema", {})
                    if schema.get("$ref") != ERROR_REF:
                        out.append(f"{where} {status}: a refusal not in the error shape")
    return out


def test_every_answer_and_refusal_is_declared(app: FastAPI) -> None:
    doc = app.openapi()
    assert len(doc["paths"]) >= 20
    assert undeclared(doc) == []
    ops = [op for ops in doc["paths"].values() for op in ops.values()]
    # Every REST operation (pages and the socket are not in it); issue 25's accounts, open
    # games, the transfer code, its claim and the one-click unsubscribe, the ratings; issue
    # 26's push key, vacation, the board's PNG, the game's GIF and the public position; issue
    # 27's bot stream and move, bot accounts (upgrade, token, revoke), the events stream and
    # challenges (create, read, accept, decline, cancel), its puzzles (daily, stream, one,
    # answer); the clock's answer to a proposal (issue 26 item 6); the account's vacation in
    # all its games (issue 26 item 3).
    assert len(ops) == 76, len(ops)


def test_answers_name_their_fields(app: FastAPI) -> None:
    """Spot checks that the schema is the answer's, not a placeholder (docs/protocol.md)."""
    doc = app.openapi()

    def fields(path: str, method: str = "get", status: str = "200") -> set[str]:
        s = doc["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
        return set(_resolve(doc, s)["properties"])

    assert {"game", "board", "status", "version", "online", "clock"} <= fields("/api/games/{game_id}")
    assert {"game", "base", "links"} <= fields("/api/games", "post", "201")
    assert {"game", "role", "seat", "token"} == fields("/api/games/{game_id}/claim", "post")
    assert {"view", "legal", "version", "entries"} <= fields("/api/tables/{gid}")
    assert {"status", "done", "total"} == fields("/api/games/{game_id}/analysis", "get", "202")
    metrics = doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert list(metrics) == ["text/plain"]


def test_a_planted_untyped_route_is_reported(tmp_path: Path) -> None:
    """The walk can fail: a route that answers an untyped dict, one that answers anything, and
    one that declares a refusal of another shape are each named."""
    app = create_app(kit.settings(tmp_path))

    @app.get("/api/planted/dict")
    async def planted_dict() -> dict[str, Any]:
        return {"n": 1}

    @app.get("/api/planted/any")
    async def planted_any():  # type: ignore[no-untyped-def]  # no annotation: no schema at all
        return {"n": 1}

    @app.get("/api/planted/teapot", response_model=None,
             responses={418: {"description": "a refusal of its own shape"}})
    async def planted_teapot() -> None:
        return None

    found = undeclared(app.openapi())
    assert "GET /api/planted/dict 200: an object with no declared fields" in found, found
    assert any(f.startswith("GET /api/planted/any 200: no schema") for f in found), found
    assert "GET /api/planted/teapot 418: a refusal not in the error shape" in found, found
    assert all("/api/planted/" in f for f in found), found


# ---------------------------------------------------------------------- the docs

ROUTE = re.compile(r"`(GET|POST|PUT|PATCH|DELETE) (/[^`\s?]*)")


def _shape(path: str) -> str:
    """A path with every parameter as ``{}`` (the docs write ``{id}``, the routes ``{game_id}``)."""
    return re.sub(r"\{[^}]*\}|<[^>]*>", "{}", path)


def _documented(text: str) -> set[tuple[str, str]]:
    return {(m, _shape(p)) for m, p in ROUTE.findall(text)}


def _rest_section() -> str:
    text = (DOCS / "protocol.md").read_text("utf-8")
    start = text.index("\n## REST")
    return text[start:text.index("\n## ", start + 1)]


def _routes(app: FastAPI) -> list[tuple[str, set[str]]]:
    """(path, methods) of every route, those of included routers too."""
    try:  # FastAPI >= 0.165 keeps included routers as such; this walks into them
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older: the app's routes are flat
        return [(r.path, set(r.methods or ())) for r in app.routes if isinstance(r, Route)]
    return [(rc.path, set(rc.methods or ())) for rc in iter_route_contexts(app.routes)
            if rc.path is not None and rc.methods]


def _served(app: FastAPI) -> set[tuple[str, str]]:
    """Every (method, path) the app answers, pages and static files included."""
    out = {(m, _shape(path)) for path, methods in _routes(app) for m in methods if m != "HEAD"}
    mounts = {("GET", f"{r.path}/{{}}") for r in app.routes if isinstance(r, Mount)}
    return out | mounts


def test_protocol_md_lists_every_rest_route(app: FastAPI) -> None:
    """docs/protocol.md's REST part names every operation of the schema, and nothing else
    that is not served."""
    doc = app.openapi()
    schema = {(m.upper(), _shape(p)) for p, ops in doc["paths"].items() for m in ops}
    listed = _documented(_rest_section())
    assert schema - listed == set(), "served but not in docs/protocol.md's REST part"
    assert listed - _served(app) == set(), "in docs/protocol.md's REST part but not served"


@pytest.mark.parametrize("name", ["protocol.md", "server.md", "table.md", "analysis.md", "api.md",
                                  "security.md", "hosting.md", "records.md"])
def test_every_documented_route_exists(app: FastAPI, name: str) -> None:
    named = _documented((DOCS / name).read_text("utf-8"))
    assert named - _served(app) == set(), f"docs/{name} names routes the server does not have"


def test_the_docs_check_can_fail(app: FastAPI) -> None:
    """A route the docs do not know, and a documented one that is gone, are both seen."""
    assert ("GET", "/api/nowhere") in _documented("`GET /api/nowhere`") - _served(app)
    without = re.sub(r"`POST /api/games/\{[a-z_]+\}/claim`", "claim", _rest_section())
    assert ("POST", "/api/games/{}/claim") in _served(app) - _documented(without)
