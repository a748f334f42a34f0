"""Rules help in English and German: a short summary and the rulings players most often get
wrong (RULES.md, "Rulings to explain to players")."""

from __future__ import annotations

from rebirth.engine.i18n import Text, pick

SUMMARY: list[tuple[str, Text]] = [
    ("P-1", {"en": "On your turn place your one hand tile on a free matching space, score at "
                   "once everything it triggers, then draw a tile.",
             "de": "Lege im Zug dein einziges Handplättchen auf ein freies passendes Feld, werte "
                   "sofort alles Ausgelöste und ziehe nach."}),
    ("P-2", {"en": "Energy Farms go on energy or blank spaces, Food Farms on food or blank spaces "
                   "(Ireland: also flexible spaces); settlements only on settlement spaces.",
             "de": "Energie-Farmen auf Energie- oder leere Felder, Nahrungs-Farmen auf Nahrungs- "
                   "oder leere Felder (Irland: auch flexible Felder); Siedlungen nur auf "
                   "Siedlungsfelder."}),
    ("P-3", {"en": "Emergency rule: only when no matching, blank (or flexible) space is free may a farm go "
                   "on the other farm type, never on a settlement space.",
             "de": "Notfallregel: nur wenn kein passendes, leeres (oder flexibles) Feld frei ist, darf eine "
                   "Farm auf den anderen Farm-Typ, niemals auf ein Siedlungsfeld."}),
    ("F-1", {"en": "A farm scores the size of its group of same-colour, same-type farms.",
             "de": "Eine Farm zählt die Größe ihrer Gruppe gleichfarbiger, gleichartiger Farmen."}),
    ("T-3", {"en": "A district of 2/3 (Ireland: 4) spaces scores when full: 5/3, 8/5 (12/8/5) "
                   "by influence; alone you take all ranks (8, 13, 25). A 1-space district "
                   "pays the influence at once.",
             "de": "Ein Gebiet mit 2/3 (Irland: 4) Feldern wertet, wenn es voll ist: 5/3, 8/5 "
                   "(12/8/5) nach Einfluss; allein erhältst du alle Ränge (8, 13, 25). Ein "
                   "1-Feld-Gebiet zahlt sofort den Einfluss."}),
    ("C-1", {"en": "The first tile next to a castle takes it; more adjacent spaces take it over; "
                   "each castle held at the end scores 5.",
             "de": "Das erste Plättchen an einer Burg besetzt sie; mehr angrenzende Felder "
                   "übernehmen sie; jede Burg zählt am Ende 5."}),
    ("K-1", {"en": "Scotland: your first tile next to a cathedral draws a secret mission card "
                   "(3-5 points at the end if fulfilled).",
             "de": "Schottland: dein erstes Plättchen an einer Kathedrale bringt eine geheime "
                   "Missionskarte (3-5 Punkte am Ende, wenn erfüllt)."}),
    ("I-5", {"en": "Ireland: your first tile next to a round tower gives you its bonus; public "
                   "missions pay the first player the high value, later players the low one.",
             "de": "Irland: dein erstes Plättchen an einem Rundturm bringt dir seinen Bonus; "
                   "öffentliche Missionen zahlen dem Ersten den hohen, Späteren den niedrigen "
                   "Wert."}),
    ("E-2", {"en": "At the end: incomplete districts, castles (5 each), secret missions. Ties "
                   "for the win: Edinburgh, then Stirling (Ireland: Blarney, then the Hill of "
                   "Tara).",
             "de": "Am Ende: unvollständige Gebiete, Burgen (je 5), geheime Missionen. "
                   "Gleichstand um den Sieg: Edinburgh, dann Stirling (Irland: Blarney, dann "
                   "Hill of Tara)."}),
]

RULINGS: list[tuple[str, Text]] = [
    ("K-3", {"en": "Missions: a tie with the leader is enough; more than all others together is "
                   "never needed.",
             "de": "Missionen: Gleichstand mit dem Führenden genügt; mehr als alle anderen "
                   "zusammen ist nie nötig."}),
    ("C-3", {"en": "A castle tie in adjacent spaces is broken by adjacent farm tiles (Energy + "
                   "Food): the one with more wins. Only if that is equal too does the holder keep "
                   "it (the attacker loses a full tie). On mission cards a tie is enough.",
             "de": "Ein Burg-Gleichstand bei angrenzenden Feldern wird durch angrenzende "
                   "Farm-Plättchen (Energie + Nahrung) entschieden: wer mehr hat, gewinnt. Erst "
                   "wenn auch das gleich ist, behält der Halter die Burg (der Angreifer verliert "
                   "einen vollständigen Gleichstand). Auf Missionskarten genügt ein "
                   "Gleichstand."}),
    ("S-2", {"en": "4 players: 9 tiles per player go back to the box before the game.",
             "de": "4 Spieler: vor der Partie kommen je Spieler 9 Plättchen in die Schachtel."}),
    ("F-1", {"en": "A lone farm scores 1.", "de": "Eine einzelne Farm zählt 1."}),
    ("T-4", {"en": "The completer of a district loses its ties.",
             "de": "Wer ein Gebiet vollendet, verliert dessen Gleichstände."}),
    ("C-2", {"en": "Castle takeovers are mandatory.", "de": "Burgübernahmen sind Pflicht."}),
    ("I-8", {"en": "x2 markers only go forward: never on a mission fulfilled that turn.",
             "de": "x2-Marker wirken nur nach vorn: nie auf eine im selben Zug erfüllte "
                   "Mission."}),
]

HEADINGS: dict[str, Text] = {
    "summary": {"en": "The rules in brief", "de": "Die Regeln in Kürze"},
    "rulings": {"en": "Rulings most often played wrong", "de": "Die häufigsten Regelfehler"},
}


def rules_text(lang: str) -> str:
    """The summary and the rulings as plain text in ``lang``."""
    lines = [pick(HEADINGS["summary"], lang)]
    lines += [f"  [{rid}] {pick(t, lang)}" for rid, t in SUMMARY]
    lines += ["", pick(HEADINGS["rulings"], lang)]
    lines += [f"  {i}. [{rid}] {pick(t, lang)}" for i, (rid, t) in enumerate(RULINGS, 1)]
    return "\n".join(lines)
