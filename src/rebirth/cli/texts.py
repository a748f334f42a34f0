"""Every string of the terminal game, in English and German.

Kept apart from the code so a translation is checked in one place: each key
has both languages (a test walks the catalogue).
"""

from __future__ import annotations

from typing import Any

CATALOGUE: dict[str, tuple[str, str]] = {
    # Start-up and errors.
    "bad_seat_kind": (
        "error: unknown seat kind {kind!r}; valid kinds: {kinds}",
        "Fehler: unbekannte Platzart {kind!r}; gültig sind: {kinds}",
    ),
    "bad_seat_count": (
        "error: {players} players need {players} seats, --seats gives {n}",
        "Fehler: {players} Spieler brauchen {players} Plätze, --seats nennt {n}",
    ),
    "bad_names": (
        "error: {players} players need {players} names, --names gives {n}",
        "Fehler: {players} Spieler brauchen {players} Namen, --names nennt {n}",
    ),
    "bad_start": (
        "error: --start must be a seat from 1 to {players}, not {start}",
        "Fehler: --start muss ein Platz von 1 bis {players} sein, nicht {start}",
    ),
    "bad_setup": ("error: {msg}", "Fehler: {msg}"),
    "bad_delay": ("error: --delay must be a number of seconds from 0 to 60",
                  "Fehler: --delay muss eine Zahl von Sekunden zwischen 0 und 60 sein"),
    "bad_name": (
        "error: the name {name!r} must have 1 to {most} characters and no [ ] \\ or control characters",
        "Fehler: der Name {name!r} muss 1 bis {most} Zeichen haben, ohne [ ] \\ oder Steuerzeichen",
    ),
    "human_name": ("Player {n}", "Spieler {n}"),
    # The seed is never shown during a game (it would let a seat deal the game
    # again); it is in the record written at the end.
    "start_line": (
        "Rebirth — {board}, {players} players. Seats: {seats}.",
        "Rebirth — {board}, {players} Spieler. Plätze: {seats}.",
    ),
    "kind_human": ("human", "Mensch"),
    "resumed_line": (
        "Resumed from {path}: {n} actions so far.",
        "Fortgesetzt aus {path}: bisher {n} Aktionen.",
    ),
    "resumed_line_1": (
        "Resumed from {path}: 1 action so far.",
        "Fortgesetzt aus {path}: bisher 1 Aktion.",
    ),
    "bad_record_path": (
        "error: cannot write the record to {path}: {why}",
        "Fehler: Partie kann nicht nach {path} geschrieben werden: {why}",
    ),
    "bad_resume": ("error: cannot resume from {path}: {msg}",
                   "Fehler: Fortsetzen aus {path} nicht möglich: {msg}"),
    "resume_over": (
        "error: the game in {path} is already over; see it with 'rebirth replay {path}'",
        "Fehler: die Partie in {path} ist schon beendet; ansehen mit 'rebirth replay {path}'",
    ),
    "saved_interrupted": (
        "Interrupted: the game so far is saved in {path}. Continue it with: rebirth play --resume {path}",
        "Unterbrochen: die Partie ist in {path} gespeichert. Fortsetzen mit: "
        "rebirth play --resume {path}",
    ),
    "hand_over": ("Pass to {name} — press Enter ", "Weiter an {name} — Enter drücken "),
    "hand_over_title": ("Hand-over", "Übergabe"),
    "hand_over_hint": (
        "Everything private is hidden. Only {name} should look at the screen now.",
        "Alles Geheime ist verdeckt. Jetzt sollte nur {name} auf den Bildschirm schauen.",
    ),
    "since_title": ("Since your last turn", "Seit deinem letzten Zug"),
    "since_none": ("nothing yet", "noch nichts"),
    "since_more": ("… {n} earlier (type 'log')", "… {n} frühere ('protokoll' eingeben)"),
    "scores_line": ("Scores:", "Punkte:"),
    "set_aside_short": ("Set aside: {tiles}", "Beiseite: {tiles}"),
    "set_aside_hidden_short": ("Set aside: {n} face down", "Beiseite: {n} verdeckt"),
    "missions_line": ("Your missions: {items}  (type 'missions')",
                      "Deine Missionen: {items}  ('missionen' eingeben)"),
    "last_tile_note": (
        "Underlined/starred: each player's last tile.  Type 'regions' for the regions and districts.",
        "Unterstrichen/Stern: das letzte Plättchen jedes Spielers.  'gebiete' zeigt Regionen und Gebiete.",
    ),
    "dense_note": (
        "Small map: each line holds two rows, the left number's row under the top letters, "
        "the right number's row under the bottom letters.",
        "Kleine Karte: jede Zeile enthält zwei Reihen, die Reihe der linken Zahl unter den oberen "
        "Buchstaben, die der rechten Zahl unter den unteren.",
    ),
    "regions_title": ("Regions and districts", "Regionen und Gebiete"),
    "region_line": ("{name}: {n} spaces", "{name}: {n} Felder"),
    "district_line": ("district {name} ({n} spaces): {labels}", "Gebiet {name} ({n} Felder): {labels}"),
    "district_line_1": ("district {name} (1 space): {labels}", "Gebiet {name} (1 Feld): {labels}"),
    "not_action": (
        "{text!r} is not an action: type a hex such as C7, or 'help'",
        "{text!r} ist keine Aktion: gib ein Feld wie C7 ein, oder 'hilfe'",
    ),
    "confirm_again": ("Please answer y (yes) or n (no).", "Bitte mit j (ja) oder n (nein) antworten."),
    "variants_line": ("Variants: {v}", "Varianten: {v}"),
    "record_written": ("Record written to {path}", "Partie gespeichert in {path}"),
    "record_failed": (
        "error: cannot write the record to {path}: {msg}",
        "Fehler: Partie kann nicht nach {path} geschrieben werden: {msg}",
    ),
    "quit_msg": ("Game left before the end.", "Partie vor dem Ende verlassen."),
    "eof_msg": ("End of input: leaving the game.", "Eingabe beendet: Partie wird verlassen."),
    # Map.
    "map_title": ("{board} — turn {turn}", "{board} — Zug {turn}"),
    # The legend is built from the parts a board has (Ireland has no ports or cathedrals).
    "lg_free": ("Free spaces:", "Freie Felder:"),
    "lg_energy": ("e energy", "e Energie"),
    "lg_food": ("f food", "f Nahrung"),
    "lg_blank": ("b blank", "b leer"),
    "lg_flexible": ("x flexible", "x flexibel"),
    "lg_settlement": ("1-4 settlement (district size)", "1-4 Siedlung (Gebietsgröße)"),
    "lg_port": ("^ port", "^ Hafen"),
    "lg_offshore": ("~ offshore", "~ Offshore"),
    "lg_blocker": ("* blocked with 2 players", "* bei 2 Spielern gesperrt"),
    "lg_neutral": ("N neutral tile", "N neutrales Plättchen"),
    "lg_tile": ("E:1 = player 1's Energy Farm", "E:1 = Energie-Farm von Spieler 1"),
    "lg_tile_dense": ("E1/F1/S1 = farm or settlement of player 1  Du = free castle (see "
                      "'regions')",
                      "E1/F1/S1 = Farm oder Siedlung von Spieler 1  Du = freie Burg (siehe "
                      "'gebiete')"),
    "lg_castle": ("#castle (#2: held by player 2)", "#Burg (#2: Halter Spieler 2)"),
    "lg_cathedral": ("+cathedral", "+Kathedrale"),
    "lg_tower": ("!round tower", "!Rundturm"),
    "lg_legal": ("highlighted/upper case: where your tile may go",
                 "hervorgehoben/groß: wohin dein Plättchen darf"),
    "owners": ("Tiles: {owners}", "Plättchen: {owners}"),
    # Panels.
    "scores_title": ("Scores", "Punkte"),
    "col_player": ("Player", "Spieler"),
    "col_total": ("Total", "Summe"),
    "col_supply": ("Supply", "Vorrat"),
    "col_missions": ("Cards", "Karten"),
    "col_castles": ("Held", "Gehalten"),
    "col_placed": ("Placed", "Gelegt"),
    "cat_farms": ("Farms", "Farmen"),
    "cat_settlements": ("Settl.", "Siedl."),
    "cat_ports": ("Ports", "Häfen"),
    "cat_castles": ("Castles", "Burgen"),
    "cat_missions": ("Missions", "Missionen"),
    "cat_offshore": ("Offshore", "Offshore"),
    "cat_towers": ("Towers", "Türme"),
    "cat_public_missions": ("Public", "Öffentl."),
    "castles_line": ("Castles: {items}", "Burgen: {items}"),
    "cathedrals_line": ("Cathedrals: {items}", "Kathedralen: {items}"),
    "towers_line": ("Towers: {items}", "Türme: {items}"),
    "nobody": ("free", "frei"),
    "none": ("none", "keine"),
    "deck_line": ("Mission deck: {n} cards", "Missionsstapel: {n} Karten"),
    "deck_line_1": ("Mission deck: 1 card", "Missionsstapel: 1 Karte"),
    "to_move": ("{name} to move", "{name} ist am Zug"),
    "hand": ("Your tile: {tile}", "Dein Plättchen: {tile}"),
    "extra": ("Extra tile to place: {tile}", "Extra-Plättchen zu legen: {tile}"),
    "set_aside": ("Set aside (out of play): {tiles}", "Beiseite (aus dem Spiel): {tiles}"),
    "set_aside_hidden": (
        "Set aside: {n} face-down tiles (unknown to you)",
        "Beiseite: {n} verdeckte Plättchen (auch dir unbekannt)",
    ),
    "set_aside_hidden_1": (
        "Set aside: 1 face-down tile (unknown to you)",
        "Beiseite: 1 verdecktes Plättchen (auch dir unbekannt)",
    ),
    "your_missions": ("Your secret missions", "Deine geheimen Missionen"),
    "no_missions": ("You have no missions yet.", "Du hast noch keine Missionen."),
    "mission_pts": ("{pts} points", "{pts} Punkte"),
    "mission_values": ("{a}/{b} points", "{a}/{b} Punkte"),
    # I-9: a secret Ireland card pays only its first value.
    "mission_secret_value": ("{a} points", "{a} Punkte"),
    "x2_fulfilled_by": ("already fulfilled by {who}", "schon erfüllt von {who}"),
    "x2_open": ("not fulfilled yet", "noch nicht erfüllt"),
    "now_fulfilled": ("now fulfilled", "derzeit erfüllt"),
    "now_not": ("now not fulfilled", "derzeit nicht erfüllt"),
    "public_missions": ("Public missions", "Öffentliche Missionen"),
    "fulfilled_by": ("fulfilled by {who}", "erfüllt von {who}"),
    "open": ("open", "offen"),
    "x2_by": ("x2: {who}", "x2: {who}"),
    "legal_line": ("Legal spaces ({n}): {items}", "Legale Felder ({n}): {items}"),
    "legal_line_1": ("Legal space (1): {items}", "Legales Feld (1): {items}"),
    "mark_choices": (
        "Choose a public mission for your x2 marker (type e.g. 'mark {ex}'):",
        "Wähle eine öffentliche Mission für deinen x2-Marker (z. B. 'mark {ex}'):",
    ),
    # Input.
    "prompt_place": (
        "{name}, place {tile} (hex, or 'help'): ",
        "{name}, lege {tile} (Feld oder 'hilfe'): ",
    ),
    "prompt_mark": ("{name}, x2 marker on (mark ID): ", "{name}, x2-Marker auf (markiere ID): "),
    "confirm": ("Confirm? [Y/n] ", "Bestätigen? [J/n] "),
    "preview": ("{label}: {pts} ({why})", "{label}: {pts} ({why})"),
    "preview_nothing": ("nothing now", "vorerst nichts"),
    "preview_space": ("{kind}{extra}", "{kind}{extra}"),
    "district_of": (", district {name} of size {size}", ", Gebiet {name} der Größe {size}"),
    "cancelled": ("Not placed. Choose again.", "Nicht gelegt. Wähle neu."),
    "refused": ("Refused: {msg}", "Abgelehnt: {msg}"),
    "unknown_mission": (
        "{mid} is not a mission you can mark now; choose one of: {opts}",
        "{mid} ist keine Mission, die du jetzt markieren kannst; wähle eine von: {opts}",
    ),
    "help": (
        "Type a hex label such as C7 (upper or lower case) to place your tile there;\n"
        "you see the points it would score and confirm with Enter.\n"
        "{mark_hint}"
        "Commands: help or ? (this text), legal (legal spaces), missions, regions (regions and "
        "districts), legend (what the map shows), rules, log (full event log), board (redraw), "
        "quit (leave; the record is written).\n"
        "Ctrl-C saves the game so far; 'rebirth play --resume FILE' continues it.",
        "Gib ein Feld wie C7 ein (groß oder klein), um dein Plättchen dorthin zu legen;\n"
        "du siehst die Punkte und bestätigst mit Enter.\n"
        "{mark_hint}"
        "Befehle: hilfe oder ? (dieser Text), felder (legale Felder), missionen, gebiete "
        "(Regionen und Gebiete), legende (was die Karte zeigt), regeln, protokoll (alle "
        "Ereignisse), brett (neu zeichnen), ende (verlassen; die Partie wird gespeichert).\n"
        "Strg-C speichert die Partie; "
        "'rebirth play --resume DATEI' setzt sie fort.",
    ),
    "mark_hint": ("In the x2-marker decision type 'mark' and the mission id, e.g. 'mark {ex}'.\n",
                  "Bei der x2-Marker-Entscheidung gib 'markiere' und die Missionsnummer ein, "
                  "z. B. 'markiere {ex}'.\n"),
    "log_title": ("Event log", "Ereignisse"),
    "log_empty": ("Nothing has happened yet.", "Noch ist nichts geschehen."),
    # Kinds of space, for the preview.
    "kind_energy": ("energy space", "Energie-Feld"),
    "kind_food": ("food space", "Nahrungs-Feld"),
    "kind_blank": ("blank space", "leeres Feld"),
    "kind_flexible": ("flexible space", "flexibles Feld"),
    "kind_settlement": ("settlement space", "Siedlungsfeld"),
    # End.
    "final_title": ("Final result", "Endergebnis"),
    "final_scoring": ("Final scoring", "Schlusswertung"),
    "winner": ("Winner: {names}", "Sieger: {names}"),
    "winners": ("Shared win: {names}", "Geteilter Sieg: {names}"),
    "game_over_partial": (
        "The game was not finished ({n} actions).",
        "Die Partie wurde nicht beendet ({n} Aktionen).",
    ),
    "game_over_partial_1": (
        "The game was not finished (1 action).",
        "Die Partie wurde nicht beendet (1 Aktion).",
    ),
}

# Commands in both languages map to one canonical name, so a German player can
# type the German word and an English habit still works.
COMMANDS: dict[str, str] = {
    "help": "help", "?": "help", "hilfe": "help", "h": "help",
    "legal": "legal", "l": "legal", "felder": "legal", "züge": "legal", "zuege": "legal",
    "missions": "missions", "missionen": "missions", "m": "missions",
    "log": "log", "protokoll": "log", "verlauf": "log",
    "legend": "legend", "legende": "legend", "key": "legend",
    "regions": "regions", "regionen": "regions", "gebiete": "regions", "districts": "regions",
    "rules": "rules", "regeln": "rules", "r": "rules",
    "board": "board", "brett": "board", "karte": "board", "map": "board",
    "quit": "quit", "exit": "quit", "q": "quit", "ende": "quit", "beenden": "quit",
}

YES = ("", "y", "yes", "j", "ja")
NO = ("n", "no", "nein")
# "mark I03" in English, "markiere I03" in German.
MARK_WORDS = ("mark", "markiere", "markieren")
# Seat kinds a German player may type for "human".
HUMAN_WORDS = ("human", "mensch")


class Texts:
    """The catalogue in one language: ``tx("key", name=...)``."""

    def __init__(self, lang: str) -> None:
        self.lang = "de" if lang == "de" else "en"

    def __call__(self, key: str, **kw: Any) -> str:
        # A count of one takes the singular text when the catalogue has one ("1 card").
        if kw.get("n") == 1 and f"{key}_1" in CATALOGUE:
            key = f"{key}_1"
        en, de = CATALOGUE[key]
        return (de if self.lang == "de" else en).format(**kw)
