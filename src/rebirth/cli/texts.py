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
    "start_line": (
        "Rebirth — {board}, {players} players, seed {seed}. Seats: {seats}.",
        "Rebirth — {board}, {players} Spieler, Startwert {seed}. Plätze: {seats}.",
    ),
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
    "legend": (
        "Free spaces: e energy  f food  b blank  x flexible  1-4 settlement (district size)"
        "  ^ port  ~ offshore",
        "Freie Felder: e Energie  f Nahrung  b leer  x flexibel  1-4 Siedlung (Gebietsgröße)"
        "  ^ Hafen  ~ Offshore",
    ),
    "legend2": (
        "N neutral tile  #castle (holder's colour)  +cathedral  !tower  "
        "highlighted/upper case: where your tile may go",
        "N neutrales Plättchen  #Burg (Farbe des Halters)  +Kathedrale  !Turm  "
        "hervorgehoben/groß: wohin dein Plättchen darf",
    ),
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
    "cat_offshore": ("Offsh.", "Offsh."),
    "cat_towers": ("Towers", "Türme"),
    "cat_public_missions": ("Public", "Öffentl."),
    "castles_line": ("Castles: {items}", "Burgen: {items}"),
    "cathedrals_line": ("Cathedrals: {items}", "Kathedralen: {items}"),
    "towers_line": ("Towers: {items}", "Türme: {items}"),
    "nobody": ("free", "frei"),
    "none": ("none", "keine"),
    "deck_line": ("Mission deck: {n} cards", "Missionsstapel: {n} Karten"),
    "to_move": ("{name} to move", "{name} ist am Zug"),
    "hand": ("Your tile: {tile}", "Dein Plättchen: {tile}"),
    "extra": ("Extra tile to place: {tile}", "Extra-Plättchen zu legen: {tile}"),
    "set_aside": ("Set aside (out of play): {tiles}", "Beiseite (aus dem Spiel): {tiles}"),
    "set_aside_hidden": (
        "Set aside: {n} face-down tiles (unknown to you)",
        "Beiseite: {n} verdeckte Plättchen (auch dir unbekannt)",
    ),
    "your_missions": ("Your secret missions", "Deine geheimen Missionen"),
    "no_missions": ("You have no missions yet.", "Du hast noch keine Missionen."),
    "mission_pts": ("{pts} points", "{pts} Punkte"),
    "mission_values": ("{a}/{b} points", "{a}/{b} Punkte"),
    "now_fulfilled": ("now fulfilled", "derzeit erfüllt"),
    "now_not": ("now not fulfilled", "derzeit nicht erfüllt"),
    "public_missions": ("Public missions", "Öffentliche Missionen"),
    "fulfilled_by": ("fulfilled by {who}", "erfüllt von {who}"),
    "open": ("open", "offen"),
    "x2_by": ("x2: {who}", "x2: {who}"),
    "legal_line": ("Legal spaces ({n}): {items}", "Legale Felder ({n}): {items}"),
    "mark_choices": (
        "Choose a public mission for your x2 marker (type e.g. 'mark {ex}'):",
        "Wähle eine öffentliche Mission für deinen x2-Marker (z. B. 'mark {ex}'):",
    ),
    # Input.
    "prompt_place": (
        "{name}, place {tile} (hex, or 'help'): ",
        "{name}, lege {tile} (Feld oder 'hilfe'): ",
    ),
    "prompt_mark": ("{name}, x2 marker on (mark ID): ", "{name}, x2-Marker auf (mark ID): "),
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
        "In the x2-marker decision type 'mark I03'.\n"
        "Commands: help or ? (this text), legal (legal spaces), missions, rules, "
        "log (full event log), board (redraw), quit (leave; the record is written).",
        "Gib ein Feld wie C7 ein (groß oder klein), um dein Plättchen dorthin zu legen;\n"
        "du siehst die Punkte und bestätigst mit Enter.\n"
        "Bei der x2-Marker-Entscheidung gib 'mark I03' ein.\n"
        "Befehle: hilfe oder ? (dieser Text), legal (legale Felder), missionen, regeln, "
        "log (alle Ereignisse), brett (neu zeichnen), ende (verlassen; die Partie wird "
        "gespeichert).",
    ),
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
}

# Commands in both languages map to one canonical name, so a German player can
# type the German word and an English habit still works.
COMMANDS: dict[str, str] = {
    "help": "help", "?": "help", "hilfe": "help", "h": "help",
    "legal": "legal", "l": "legal",
    "missions": "missions", "missionen": "missions", "m": "missions",
    "log": "log",
    "rules": "rules", "regeln": "rules", "r": "rules",
    "board": "board", "brett": "board", "karte": "board", "map": "board",
    "quit": "quit", "exit": "quit", "q": "quit", "ende": "quit", "beenden": "quit",
}

YES = ("", "y", "yes", "j", "ja")


class Texts:
    """The catalogue in one language: ``tx("key", name=...)``."""

    def __init__(self, lang: str) -> None:
        self.lang = "de" if lang == "de" else "en"

    def __call__(self, key: str, **kw: Any) -> str:
        en, de = CATALOGUE[key]
        return (de if self.lang == "de" else en).format(**kw)
