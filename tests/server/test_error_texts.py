"""Issue 14, item 5: the server answers refusals in both languages from catalog keys, never
with one English text copied into both (HTTP errors, request-validation faults, set-up refusals)."""

from __future__ import annotations

from pathlib import Path

from server import kit


def test_http_errors_and_validation_faults_read_in_both_languages(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        err = c.get("/api/nothing").json()["error"]
        assert err["code"] == "not_found"
        assert err["message"] == {"en": "Not Found", "de": "Nicht gefunden", "fr": "Introuvable"}
        err = c.post("/api/games", json={"players": 5}).json()["error"]
        assert err["code"] == "bad_message" and err["details"]["field"] == "body.players"
        assert err["message"]["en"] == ("this message is not understood: body.players: "
                                        "input should be less than or equal to 4")
        assert err["message"]["de"] == ("diese Nachricht ist unverständlich: body.players: "
                                        "darf höchstens 4 sein")
        assert err["details"]["reason"] == "input should be less than or equal to 4"


def test_an_engine_refusal_of_a_new_game_reads_in_both_languages(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        err = c.post("/api/games", json={"variants": ["no_such_rule"]}).json()["error"]
        assert err["code"] == "bad_game"
        assert err["message"]["en"] != err["message"]["de"]
        assert "no_such_rule" in err["message"]["en"] and "no_such_rule" in err["message"]["de"]
