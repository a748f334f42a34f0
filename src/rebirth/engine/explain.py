"""Explanations: the bilingual events of the rules, one builder per kind of event.

:mod:`rebirth.engine.state` calls these only when a caller asked for events
(``State.apply``), never on the fast path. Builders take plain facts (seats,
tiles, numbers, board objects) and decide no rule themselves, except which rule
id and wording fits the facts. Texts name players ``{s0}``..``{s3}``.
"""

from __future__ import annotations

from typing import Any

from rebirth.engine.board import District, Space, Structure
from rebirth.engine.events import Event
from rebirth.engine.i18n import Text
from rebirth.engine.missions import MissionCard, TowerToken
from rebirth.engine.tiles import TILE_NAMES_DE, TILE_NAMES_EN, tile_code

A_EN = tuple(("an " if n[0] in "AEIOU" else "a ") + n for n in TILE_NAMES_EN)
"""English tile names with their indefinite article, by tile number."""

_DIST_NAME = {2: ("medium", "mittleres"), 3: ("large", "großes"), 4: ("sprawling", "riesiges")}


# ------------------------------------------------------------------ the turn (P)


def returned_4p(p: int, tiles: list[str]) -> Event:
    """S-2: with 4 players, 9 fixed tiles per player go back to the box before the game."""
    return Event("returned", "S-2", p, {
        "en": f"4 players: {{s{p}}} returns 9 tiles to the box before the game "
              f"({' '.join(tiles)}).",
        "de": f"4 Spieler: {{s{p}}} legt vor der Partie 9 Plättchen in die Schachtel zurück "
              f"({' '.join(tiles)}).",
    }, data={"tiles": tiles})


def discard(p: int, t: int) -> Event:
    """P-7: a hand tile with no legal space is discarded."""
    return Event("discard", "P-7", p, {
        "en": f"{{s{p}}} has no legal space for {A_EN[t]}: it is revealed "
              "and discarded without score.",
        "de": f"{{s{p}}} hat kein legales Feld für eine {TILE_NAMES_DE[t]}: sie wird "
              "aufgedeckt und ohne Wertung abgelegt.",
    }, data={"tile": tile_code(t)})


def place(p: int, t: int, space: Space, emergency: bool) -> Event:
    """P-1: a tile is placed (P-3: on the other farm type's space)."""
    return Event("place", "P-1", p, {
        "en": f"{{s{p}}} places {A_EN[t]} on {space.label}"
              + (" (emergency rule P-3: no matching, blank or flexible space was free)."
                 if emergency else "."),
        "de": f"{{s{p}}} legt eine {TILE_NAMES_DE[t]} auf {space.label}"
              + (" (Notfallregel P-3: kein passendes, leeres oder flexibles Feld war frei)."
                 if emergency else "."),
    }, data={"tile": tile_code(t), "hex": space.label, "emergency": emergency})


# ------------------------------------------------------------- farms and towns


def farm(p: int, t: int, g: int) -> Event:
    """F-1: the placed farm's group of ``g`` tiles scores ``g``."""
    kind = ("Energy", "Energie") if t == 0 else ("Food", "Nahrungs")
    return Event("farm", "F-1", p, {
        "en": f"{{s{p}}}'s {kind[0]} group now has {g} tile{'s' if g > 1 else ''}: "
              f"+{g}." + (" A lone farm is a group of 1." if g == 1 else ""),
        "de": f"{{s{p}}}s {kind[1]}-Gruppe hat jetzt {g} Plättchen: +{g}."
              + (" Eine einzelne Farm ist eine 1er-Gruppe." if g == 1 else ""),
    }, points=g, data={"group": g})


def offshore(p: int, space: Space) -> Event:
    """I-3: +1 for a farm offshore."""
    return Event("offshore", "I-3", p, {
        "en": f"Offshore farm on {space.label}: +1 for {{s{p}}}.",
        "de": f"Offshore-Farm auf {space.label}: +1 für {{s{p}}}.",
    }, points=1)


def port(p: int, space: Space) -> Event:
    """T-6: +1 for a settlement on a port."""
    return Event("port", "T-6", p, {
        "en": f"Port on {space.label}: +1 for {{s{p}}}.",
        "de": f"Hafen auf {space.label}: +1 für {{s{p}}}.",
    }, points=1)


def small_district(p: int, dist: District, inf: int) -> Event:
    """T-2: a 1-space district pays its influence at once."""
    return Event("small_district", "T-2", p, {
        "en": f"Small district {dist.name['en']}: {{s{p}}} scores the influence "
              f"{inf}: +{inf}.",
        "de": f"Kleines Gebiet {dist.name['de']}: {{s{p}}} erhält den "
              f"Einfluss-Wert {inf}: +{inf}.",
    }, points=inf)


def district_alone(q: int, dist: District, pts: int) -> Event:
    """T-5: the only player in a completed district takes every rank."""
    dn = _DIST_NAME[len(dist.spaces)]
    return Event("district_alone", "T-5", q, {
        "en": f"{{s{q}}} filled the {dn[0]} district {dist.name['en']} alone and "
              f"scores all its ranks: +{pts}.",
        "de": f"{{s{q}}} hat das {dn[1]} Gebiet {dist.name['de']} allein gefüllt und "
              f"erhält alle Ränge: +{pts}.",
    }, points=pts, data={"district": dist.id})


def district_rank(q: int, dist: District, rank: int, pts: int, influence: int, *, tied: bool,
                  completer_wins: bool, final: bool) -> Event:
    """T-3/T-4 (at completion) or T-7 (``final``, at game end): ``q`` takes ``rank`` (1-based)."""
    why_en = why_de = ""
    if tied:
        if completer_wins:
            why_en = " Tie: under variant medium_completer_wins the completer wins it."
            why_de = " Gleichstand: nach Variante medium_completer_wins gewinnt der Vollender."
        else:
            why_en = (" Tie: the completer loses every tie, the others are ordered "
                      "clockwise from the player after the completer (T-4).")
            why_de = (" Gleichstand: der Vollender verliert jeden Gleichstand, die "
                      "übrigen im Uhrzeigersinn ab dem Spieler nach dem Vollender (T-4).")
    what_en = "incomplete at game end, " if final else ""
    what_de = "bei Spielende unvollständig, " if final else ""
    size = len(dist.spaces)
    return Event("final_district" if final else "district",
                 "T-7" if final else ("T-4" if tied else "T-3"), q, {
        "en": f"District {dist.name['en']} ({what_en}{size} spaces): {{s{q}}} has "
              f"influence {influence} and takes rank {rank}: +{pts}." + why_en,
        "de": f"Gebiet {dist.name['de']} ({what_de}{size} Felder): {{s{q}}} hat "
              f"Einfluss {influence} und erhält Rang {rank}: +{pts}." + why_de,
    }, points=pts, data={"district": dist.id, "rank": rank, "influence": influence})


def incomplete_as_small(q: int, dist: District, influence: int) -> Event:
    """T-7 under variant incomplete_as_small: an incomplete district pays each its influence."""
    return Event("final_district", "T-7", q, {
        "en": f"Incomplete {dist.name['en']} (variant incomplete_as_small): "
              f"{{s{q}}} scores its influence {influence}: +{influence}.",
        "de": f"Unvollständiges Gebiet {dist.name['de']} (Variante "
              f"incomplete_as_small): {{s{q}}} erhält den Einfluss {influence}: +{influence}.",
    }, points=influence)


# ---------------------------------------------------------------- castles (C)


def castle_claim(p: int, castle: Structure) -> Event:
    """C-1: the first player next to a free castle takes it."""
    name = castle.name
    return Event("castle_claim", "C-1", p, {
        "en": f"{{s{p}}} is first next to {name['en']} and takes it.",
        "de": f"{{s{p}}} legt als Erster an {name['de']} an und besetzt sie.",
    }, data={"castle": castle.id})


def castle_contest(p: int, hol: int, castle: Structure, *, take: bool, rule: str, mine: int,
                   theirs: int, my_farms: int, their_farms: int) -> Event:
    """C-2/C-3: ``p`` challenges holder ``hol``, with spaces and farms next to the castle."""
    name = castle.name
    mf, tf = my_farms, their_farms
    if rule == "C-2":
        if take:
            en = (f"{{s{p}}} now has more spaces next to {name['en']} ({mine} to {theirs}) "
                  f"and takes it from {{s{hol}}} (mandatory).")
            de = (f"{{s{p}}} hat jetzt mehr Felder an {name['de']} ({mine} zu {theirs}) und "
                  f"übernimmt sie von {{s{hol}}} (Pflicht).")
        else:
            en = (f"{{s{p}}} has {mine} spaces next to {name['en']}, {{s{hol}}} {theirs}: "
                  f"{{s{hol}}} keeps it.")
            de = (f"{{s{p}}} hat {mine} Felder an {name['de']}, {{s{hol}}} {theirs}: "
                  f"{{s{hol}}} behält sie.")
    elif take and mf > tf:
        en = (f"{{s{p}}} ties {{s{hol}}} next to {name['en']} ({mine} each) but has more "
              f"farms ({mf} to {tf}): {{s{p}}} takes it.")
        de = (f"{{s{p}}} liegt an {name['de']} gleichauf mit {{s{hol}}} ({mine}), hat aber "
              f"mehr Farmen ({mf} zu {tf}): {{s{p}}} übernimmt sie.")
    elif take:
        en = (f"Full tie at {name['en']}: under variant castle_tie_to_active {{s{p}}} takes it.")
        de = (f"Vollständiger Gleichstand an {name['de']}: nach Variante "
              f"castle_tie_to_active übernimmt {{s{p}}}.")
    elif mf < tf:
        en = (f"{{s{p}}} ties {{s{hol}}} next to {name['en']} ({mine} spaces each) but has "
              f"fewer farms ({mf} to {tf}): {{s{hol}}} keeps it.")
        de = (f"{{s{p}}} liegt an {name['de']} gleichauf mit {{s{hol}}} ({mine} Felder), hat "
              f"aber weniger Farmen ({mf} zu {tf}): {{s{hol}}} behält sie.")
    else:
        en = (f"{{s{p}}} ties {{s{hol}}} next to {name['en']} ({mine} spaces, {mf} farms "
              f"each): on the board a tie goes against the attacker, {{s{hol}}} keeps it.")
        de = (f"{{s{p}}} liegt an {name['de']} gleichauf mit {{s{hol}}} ({mine} Felder, je "
              f"{mf} Farmen): am Brett verliert der Angreifer jeden Gleichstand, "
              f"{{s{hol}}} behält sie.")
    return Event("castle_take" if take else "castle_hold", rule, p, {"en": en, "de": de},
                 data={"castle": castle.id, "holder": hol})


def final_castle(hol: int, castle: Structure) -> Event:
    """C-5: a held castle pays 5 at game end."""
    nm = castle.name
    return Event("castle_final", "C-5", hol, {
        "en": f"{{s{hol}}} holds {nm['en']}: +5.",
        "de": f"{{s{hol}}} hält {nm['de']}: +5.",
    }, points=5, data={"castle": castle.id})


# ------------------------------------------------- cathedrals and missions (K)


def cathedral(p: int, cath: Structure, card: MissionCard | None) -> Event:
    """K-1: first time next to a cathedral; ``card`` is the drawn mission (None: deck empty)."""
    name = cath.name
    if card is None:
        return Event("cathedral", "K-1", p, {
            "en": f"{{s{p}}} is next to {name['en']} for the first time, but the "
                  "mission deck is empty.",
            "de": f"{{s{p}}} legt zum ersten Mal an {name['de']} an, aber der "
                  "Missionsstapel ist leer.",
        }, data={"cathedral": cath.id})
    return Event("cathedral", "K-1", p, {
        "en": f"{{s{p}}} is next to {name['en']} for the first time: cathedral "
              "piece placed, one secret mission card drawn.",
        "de": f"{{s{p}}} legt zum ersten Mal an {name['de']} an: Kathedralen-"
              "Figur gesetzt, eine geheime Missionskarte gezogen.",
    }, data={"cathedral": cath.id},
        private={"mission": card.id},
        private_text={"en": f"Your card: {card.id} — {card.text['en']} "
                            f"({card.points} points).",
                      "de": f"Deine Karte: {card.id} — {card.text['de']} "
                            f"({card.points} Punkte)."})


def mission_reveal(q: int, card: MissionCard, ok: bool, pts: int, *, ireland: bool) -> Event:
    """K-2 (Scotland) or I-9 (Ireland): a secret mission is revealed at game end."""
    # Scotland's cards are where tables go wrong (K-3, K-7): say the ruling with the result.
    why_en = "" if ireland else (" A tie with the leader is enough; more than all others "
                                 "together is never needed, but at least one is (K-3, K-7).")
    why_de = "" if ireland else (" Gleichstand mit dem Führenden genügt; mehr als alle "
                                 "anderen zusammen ist nie nötig, aber mindestens eines (K-3, K-7).")
    return Event("mission", "I-9" if ireland else "K-2", q, {
        "en": f"{{s{q}}} reveals mission {card.id} ({card.text['en']}): "
              + (f"fulfilled, +{pts}." if ok else "not fulfilled.") + why_en,
        "de": f"{{s{q}}} deckt Mission {card.id} auf ({card.text['de']}): "
              + (f"erfüllt, +{pts}." if ok else "nicht erfüllt.") + why_de,
    }, points=pts, data={"mission": card.id, "fulfilled": ok})


# ----------------------------------------------------------------- Ireland (I)


def tower(p: int, tw: Structure, tok: TowerToken, card: MissionCard | None) -> Event:
    """I-6…I-9: first time next to a round tower; ``card`` is a drawn secret mission, if any."""
    name = tw.name
    head_en = f"{{s{p}}} is next to {name['en']} for the first time: "
    head_de = f"{{s{p}}} legt zum ersten Mal an {name['de']} an: "
    data = {"tower": tw.id, "token": tok.kind}
    if tok.kind == "points":
        return Event("tower", "I-6", p, {
            "en": head_en + f"+{tok.points}.", "de": head_de + f"+{tok.points}.",
        }, points=tok.points, data=data)
    if tok.kind == "extra_tile":
        return Event("tower", "I-7", p, {
            "en": head_en + "an extra tile this turn.",
            "de": head_de + "ein Extra-Plättchen in diesem Zug.",
        }, data=data)
    if tok.kind == "double":
        return Event("tower", "I-8", p, {
            "en": head_en + "an x2 marker, placed at the end of the turn.",
            "de": head_de + "ein x2-Marker, gelegt am Ende des Zuges.",
        }, data=data)
    priv: dict[str, Any] | None = None
    ptext: Text | None = None
    if card is not None:
        priv = {"mission": card.id}
        ptext = {"en": f"Your card: {card.id} — {card.text['en']} "
                       f"({card.values[0]} points at the end).",
                 "de": f"Deine Karte: {card.id} — {card.text['de']} "
                       f"({card.values[0]} Punkte am Ende)."}
    return Event("tower", "I-9", p, {
        "en": head_en + ("a secret mission card." if card is not None
                         else "a mission card, but the deck is empty."),
        "de": head_de + ("eine geheime Missionskarte." if card is not None
                         else "eine Missionskarte, doch der Stapel ist leer."),
    }, data=data, private=priv, private_text=ptext)


def extra_tile(p: int, t: int) -> Event:
    """I-7: the revealed set-aside tile is placed as an extra tile."""
    return Event("extra_tile", "I-7", p, {
        "en": f"{{s{p}}} reveals {A_EN[t]} from the set-aside tiles and "
              "places it as an extra tile.",
        "de": f"{{s{p}}} deckt eine {TILE_NAMES_DE[t]} aus den beiseitegelegten "
              "Plättchen auf und legt sie zusätzlich.",
    }, data={"tile": tile_code(t)})


def extra_lost(p: int) -> Event:
    """I-7: an extra tile is lost because no set-aside tile is left."""
    return Event("extra_lost", "I-7", p, {
        "en": f"{{s{p}}}'s extra tile is lost: no set-aside tile is left.",
        "de": f"{{s{p}}}s Extra-Plättchen verfällt: kein beiseitegelegtes Plättchen mehr.",
    })


def extra_unplaceable(p: int, t: int) -> Event:
    """I-7: the revealed extra tile has no legal space; it stays set aside."""
    return Event("extra_lost", "I-7", p, {
        "en": f"{{s{p}}} reveals {A_EN[t]} as extra tile, but it has no "
              "legal space: the bonus is lost and the tile stays set aside.",
        "de": f"{{s{p}}} deckt eine {TILE_NAMES_DE[t]} als Extra-Plättchen auf, doch "
              "es gibt kein legales Feld: der Bonus verfällt, das Plättchen bleibt "
              "beiseite.",
    }, data={"tile": tile_code(t)})


def double_marker(p: int, card: MissionCard) -> Event:
    """I-8: an x2 marker goes on a public mission."""
    return Event("double_marker", "I-8", p, {
        "en": f"{{s{p}}} puts an x2 marker on mission {card.id}: it pays double "
              "when fulfilled later.",
        "de": f"{{s{p}}} legt einen x2-Marker auf Mission {card.id}: sie zählt "
              "doppelt, wenn sie später erfüllt wird.",
    }, data={"mission": card.id})


def double_lost(p: int) -> Event:
    """I-8: an x2 marker is lost because no public mission can take it."""
    return Event("double_lost", "I-8", p, {
        "en": f"{{s{p}}}'s x2 marker is lost: no public mission is left to mark.",
        "de": f"{{s{p}}}s x2-Marker verfällt: keine Mission ist mehr markierbar.",
    })


def public_mission(q: int, card: MissionCard, *, first: bool, pts: int, doubled: bool) -> Event:
    """I-10: ``q`` fulfils a public mission (``first``: the higher value)."""
    return Event("public_mission", "I-10", q, {
        "en": f"{{s{q}}} fulfils public mission {card.id} "
              f"({'first' if first else 'not first'}): +{pts}"
              + (" (x2 marker)." if doubled else "."),
        "de": f"{{s{q}}} erfüllt die öffentliche Mission {card.id} "
              f"({'als Erster' if first else 'nicht als Erster'}): +{pts}"
              + (" (x2-Marker)." if doubled else "."),
    }, points=pts, data={"mission": card.id, "first": first, "doubled": doubled})


# ---------------------------------------------------------------- game end (E)


def game_end(winners: list[int], scores: list[int], *, ireland: bool) -> Event:
    """E-3 (Scotland) or E-4 (Ireland): the winners and the final scores."""
    names = ", ".join(f"{{s{w}}}" for w in winners)
    return Event("game_end", "E-4" if ireland else "E-3", None, {
        "en": f"Game over. Winner{'s' if len(winners) > 1 else ''}: {names}.",
        "de": f"Spielende. Es gewinnt: {names}." if len(winners) == 1
              else f"Spielende. Geteilter Sieg: {names}.",
    }, data={"winners": winners, "scores": scores})
