"""Rich rendering of what one seat sees: the hex map, the score table, missions.

Everything here reads a :class:`~rebirth.engine.views.View` (plus the public
board and cards of the game), never a state, so the screen cannot leak hidden
information.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from rebirth.cli.texts import Texts
from rebirth.engine.board import BLANK, ENERGY, FLEXIBLE, FOOD, SETTLEMENT, Board, Structure
from rebirth.engine.game import Game
from rebirth.engine.hexgrid import column_letters, from_offset, parse_label, to_offset
from rebirth.engine.i18n import pick
from rebirth.engine.tiles import NEUTRAL
from rebirth.engine.views import View

# Owner colours are backgrounds, free spaces are foreground colours: a placed
# tile then never looks like a free space of some kind.
OWNER_CELL = ("bold white on red3", "bold white on blue3", "bold white on dark_magenta",
              "bold black on cyan3")
OWNER_TEXT = ("bold red3", "bold dodger_blue1", "bold magenta", "bold cyan3")
NEUTRAL_CELL = "black on grey50"
KIND_CHAR = {ENERGY: "e", FOOD: "f", BLANK: "b", FLEXIBLE: "x"}
KIND_FREE = {ENERGY: "yellow", FOOD: "green3", BLANK: "grey70", FLEXIBLE: "dark_khaki",
             SETTLEMENT: "orange3"}
# A legal space lights up in its own kind's colour.
KIND_LEGAL = {ENERGY: "bold black on yellow", FOOD: "bold black on green3",
              BLANK: "bold black on grey85", FLEXIBLE: "bold black on dark_khaki",
              SETTLEMENT: "bold black on orange1"}
STRUCT_CHAR = {"castle": "#", "cathedral": "+", "tower": "!"}
STRUCT_STYLE = {"castle": "bold white on purple4", "cathedral": "bold white on grey23",
                "tower": "bold white on grey35"}

WIDE_PITCH = 6
COMPACT_PITCH = 4
ROW_LABEL = 4


def owner_style(seat: int) -> str:
    """The text style of a seat's name."""
    return OWNER_TEXT[seat % len(OWNER_TEXT)]


def name_text(names: Sequence[str], seat: int) -> Text:
    """A player's name in their colour."""
    return Text(names[seat], style=owner_style(seat))


def _origin(board: Board) -> tuple[int, int]:
    """Offset (col, row) of label A1: the board keeps only the labels, not the corner."""
    s = board.spaces[0]
    c, r = to_offset(s.hex)
    lc_lr = parse_label(s.label)
    assert lc_lr is not None
    return c - lc_lr[0], r - lc_lr[1]


def map_width(board: Board, *, wide: bool) -> int:
    """Characters one map line needs."""
    pitch = WIDE_PITCH if wide else COMPACT_PITCH
    return ROW_LABEL + board.width * pitch + pitch // 2 + 2


def _letters(name: str) -> str:
    # "Dunrobin Castle" -> "Dunrobin": the kind is already in the symbol.
    words = [w for w in name.split() if w.lower() not in _KIND_WORDS]
    return "".join(words) or name.replace(" ", "")


_KIND_WORDS = frozenset({"castle", "cathedral", "abbey", "tower", "burg", "kathedrale", "turm"})


def abbreviations(board: Board, n: int, lang: str = "en") -> dict[int, str]:
    """A unique ``n``-letter abbreviation per structure (keyed by its hex index order).

    At narrow widths "Du" would stand for Dunrobin, Dunvegan and Duart; each name
    takes the first letter combination (first letter kept) that no earlier name took.
    """
    from itertools import combinations

    key = (id(board), n, lang)
    if key in _ABBR_CACHE and _ABBR_CACHE[key][0] is board:
        return _ABBR_CACHE[key][1]
    out: dict[int, str] = {}
    taken: set[str] = set()
    for k, st in enumerate(_structures(board)):
        letters = _letters(pick(st.name, lang))
        choice = letters[:n]
        if len(letters) > n:
            for rest in combinations(range(1, len(letters)), n - 1):
                cand = letters[0] + "".join(letters[i] for i in rest)
                if cand.lower() not in taken:
                    choice = cand
                    break
        taken.add(choice.lower())
        out[k] = choice
    _ABBR_CACHE[key] = (board, out)
    return out


# Every map cell asks for its structure's abbreviation: compute them once per board.
_ABBR_CACHE: dict[tuple[int, int, str], tuple[Board, dict[int, str]]] = {}


def _structures(board: Board) -> list[Structure]:
    return [*board.castles, *board.cathedrals, *board.towers]


def _structure_cell(board: Board, st: Structure, view: View, content: int,
                    lang: str) -> tuple[str, str]:
    style = STRUCT_STYLE[st.kind]
    holder = view.castle_holders[st.index] if st.kind == "castle" else -1
    key = _structures(board).index(st)
    prefix = STRUCT_CHAR[st.kind]
    if holder >= 0:
        # The holder's digit is shown in colour too: colour alone is not enough.
        prefix += str(holder + 1)
        style = OWNER_CELL[holder % len(OWNER_CELL)]
    if content <= 2 and st.kind == "castle" and holder < 0:
        # Dense map: "#D" could be Dunrobin, Dunvegan or Duart; a free castle shows its
        # unique two letters instead (a held one shows "#" and its holder's digit).
        return abbreviations(board, 2, lang)[key], style
    room = content - len(prefix)
    abbr = abbreviations(board, room, lang)[key] if room > 0 else ""
    return (prefix + abbr)[:content].ljust(content), style


def _space_cell(board: Board, i: int, view: View, legal: set[int], content: int,
                plain: bool, wide: bool, last: set[int]) -> tuple[str, str]:
    sp = board.spaces[i]
    owner, code = view.spaces[i]
    if owner == NEUTRAL:
        return "N".center(content), NEUTRAL_CELL
    if owner >= 0:
        shown = code or "?"
        style = OWNER_CELL[owner % len(OWNER_CELL)]
        if content <= 2:
            # Dense map: the tile's letter and the owner's digit ("S" for any settlement).
            shown = shown[0] + str(owner + 1)
            if i in last:
                style += " underline"
                if plain:
                    shown = "*" + str(owner + 1)
            return shown.ljust(content), style
        shown = f"{shown}{owner + 1}" if content <= 3 or len(shown) + 2 > content else \
            f"{shown}:{owner + 1}"
        if i in last:
            # Every player's last tile stands out: underlined in colour, starred without.
            style += " underline"
            shown = "*" + shown
        return shown.center(content)[:content], style
    kind = KIND_CHAR.get(sp.kind, "s")
    if sp.kind == SETTLEMENT:
        # The district size says more than a generic "s" and keeps the cell short.
        kind = str(board.districts[sp.district].size)
        mark = "^" if sp.port else " "
    elif sp.offshore:
        mark = "~"
    elif sp.blocker and view.players == 2:
        mark = "*"
    else:
        mark = " "
    if plain and i in legal:
        # Without colour a legal space shows an upper-case kind, or "<" for a settlement.
        if kind.isalpha():
            kind = kind.upper()
        elif mark == " ":
            mark = "<"
    style = KIND_LEGAL[sp.kind] if i in legal else KIND_FREE[sp.kind]
    if content <= 2:
        return (kind + mark)[:content].ljust(content), style
    label = sp.label if wide else ""
    body = kind + label.ljust(content - 2)[: content - 2] + mark
    return body, style


def last_tiles(board: Board, view: View) -> dict[int, int]:
    """Each player's last placed tile: space index -> seat (from the public history)."""
    out: dict[int, int] = {}
    for entry in view.history:
        seat = entry.get("seat")
        label = entry.get("action")
        if isinstance(seat, int) and isinstance(label, str) and label in board.by_label:
            out[seat] = board.by_label[label]
    return {ix: q for q, ix in out.items()}


def map_lines(board: Board, layout: str) -> int:
    """Lines the map takes in ``layout`` (wide, compact or dense)."""
    if layout != "dense":
        return board.height + 2
    _, row0 = _origin(board)
    first = row0 - (row0 & 1)
    return (row0 + board.height - first + 1) // 2 + 2


def layout_width(board: Board, layout: str) -> int:
    """Characters one map line needs in ``layout``."""
    if layout == "wide":
        return map_width(board, wide=True)
    if layout == "dense":
        return ROW_LABEL + board.width * COMPACT_PITCH + 4
    return map_width(board, wide=False)


def render_map(board: Board, view: View, *, legal: set[int] | frozenset[int] = frozenset(),
               wide: bool = True, plain: bool = False, lang: str = "en",
               last: set[int] | frozenset[int] = frozenset(), dense: bool = False) -> Text:
    """The map as odd-r rows: column letters on top and bottom, row numbers left and right.

    ``legal`` spaces are highlighted, ``last`` tiles (each player's latest)
    underlined; ``plain`` adds upper-case legal kinds and stars for screens without
    colour. ``dense`` puts two rows on each line, for small terminals.
    """
    if dense:
        return _render_dense(board, view, set(legal), plain, set(last))
    pitch = WIDE_PITCH if wide else COMPACT_PITCH
    content = pitch - 1
    col0, row0 = _origin(board)
    legal_set = set(legal)
    last_set = set(last)
    out = Text(no_wrap=True, overflow="ignore")

    def header(odd: bool) -> None:
        line = " " * ROW_LABEL + (" " * (pitch // 2) if odd else "")
        for c in range(board.width):
            line += column_letters(c).center(content) + " "
        out.append(line.rstrip() + "\n", style="bold")

    # Letters above sit over even rows, letters below over odd rows, so each
    # cell has its column letter straight above or below it.
    header((row0 & 1) == 1)
    for rr in range(board.height):
        r = rr + row0
        odd = (r & 1) == 1
        out.append(f"{rr + 1:>{ROW_LABEL - 1}} ", style="bold")
        if odd:
            out.append(" " * (pitch // 2))
        for cc in range(board.width):
            body, style = _cell(board, view, cc + col0, r, legal_set, content, plain, wide,
                                last_set, lang)
            out.append(body, style=style)
            out.append(" ")
        if not odd:
            out.append(" " * (pitch // 2))
        out.append(f"{rr + 1}\n", style="bold")
    header((row0 & 1) == 0)
    out.rstrip()
    return out


def _cell(board: Board, view: View, col: int, row: int, legal: set[int], content: int,
          plain: bool, wide: bool, last: set[int], lang: str) -> tuple[str, str]:
    h = from_offset(col, row)
    ix = board.by_hex.get(h)
    if ix is not None:
        return _space_cell(board, ix, view, legal, content, plain, wide, last)
    if h in board.structure_at:
        return _structure_cell(board, board.structure_at[h], view, content, lang)
    return " " * content, ""


def _render_dense(board: Board, view: View, legal: set[int], plain: bool,
                  last: set[int]) -> Text:
    """Two map rows per line: an even row's cells at every 4th column, the odd row between.

    That is the hex grid's own half-cell shift, so neighbours stay neighbours.
    """
    col0, row0 = _origin(board)
    out = Text(no_wrap=True, overflow="ignore")
    top = " " * ROW_LABEL + "".join(column_letters(c).ljust(COMPACT_PITCH)
                                    for c in range(board.width))
    bottom = " " * (ROW_LABEL + 2) + "".join(column_letters(c).ljust(COMPACT_PITCH)
                                            for c in range(board.width))
    out.append(top.rstrip() + "\n", style="bold")
    first = row0 - (row0 & 1)
    last_row = row0 + board.height - 1

    def number(r: int) -> str:
        return str(r - row0 + 1) if row0 <= r <= last_row else ""

    for r in range(first, last_row + 1, 2):
        out.append(f"{number(r):>{ROW_LABEL - 1}} ", style="bold")
        for cc in range(board.width):
            for rr in (r, r + 1):
                if row0 <= rr <= last_row:
                    body, style = _cell(board, view, cc + col0, rr, legal, 2, plain, False,
                                        last, "en")
                else:
                    body, style = "  ", ""
                out.append(body, style=style)
        out.append(f" {number(r + 1)}\n", style="bold")
    out.append(bottom.rstrip(), style="bold")
    return out


def legend(tx: Texts, names: Sequence[str], players: int, board: Board | None = None,
           *, dense: bool = False) -> Text:
    """What the letters and colours of the map mean (only the parts this board has)."""
    parts = ["lg_energy", "lg_food"]
    spaces = board.spaces if board is not None else ()
    kinds = {sp.kind for sp in spaces}
    if board is None or BLANK in kinds:
        parts.append("lg_blank")
    if board is None or FLEXIBLE in kinds:
        parts.append("lg_flexible")
    parts.append("lg_settlement")
    if board is None or any(sp.port for sp in spaces):
        parts.append("lg_port")
    if board is None or any(sp.offshore for sp in spaces):
        parts.append("lg_offshore")
    if board is not None and players == 2 and board.blockers:
        parts.append("lg_blocker")
    t = Text(tx("lg_free") + "  " + "  ".join(tx(k) for k in parts) + "\n", style="dim")
    second = ["lg_neutral", "lg_tile_dense" if dense else "lg_tile"]
    if board is None or board.castles:
        second.append("lg_castle")
    if board is None or board.cathedrals:
        second.append("lg_cathedral")
    if board is None or board.towers:
        second.append("lg_tower")
    second.append("lg_legal")
    t.append("  ".join(tx(k) for k in second) + "\n", style="dim")
    owners = Text()
    for q in range(players):
        if q:
            owners.append("  ")
        owners.append(f" {q + 1} {names[q]} ", style=OWNER_CELL[q])
    t.append(tx("owners", owners=""))
    t.append_text(owners)
    return t


def regions_text(board: Board, tx: Texts) -> Text:
    """Each region with its districts and the spaces that form them (missions name regions)."""
    lang = tx.lang
    out = Text(tx("regions_title") + "\n", style="bold")
    for reg in board.regions:
        members = [sp for sp in board.spaces if sp.region == reg.index]
        out.append(tx("region_line", name=pick(reg.name, lang), n=len(members)) + "\n",
                   style="bold")
        for d in board.districts:
            if d.spaces and board.spaces[d.spaces[0]].region == reg.index:
                labels = " ".join(board.spaces[i].label for i in d.spaces)
                out.append("  " + tx("district_line", name=pick(d.name, lang), n=len(d.spaces),
                                     labels=labels) + "\n")
    structs = _structures(board)
    if structs:
        # The wide map shows four letters, the compact one two.
        a4 = abbreviations(board, WIDE_PITCH - 2, lang)
        a2 = abbreviations(board, COMPACT_PITCH - 2, lang)
        out.append("  ".join(f"{STRUCT_CHAR[st.kind]}{a4[k]}/{STRUCT_CHAR[st.kind]}{a2[k]} "
                             f"{pick(st.name, lang)}" for k, st in enumerate(structs)),
                   style="dim")
    return out


def scores_line(view: View, names: Sequence[str], tx: Texts) -> Text:
    """All scores on one line, the player to move marked."""
    t = Text(tx("scores_line"))
    for q in range(view.players):
        t.append("  ▶ " if q == view.current_player else "   ")
        t.append(f" {q + 1} {names[q]} ", style=OWNER_CELL[q % len(OWNER_CELL)])
        t.append(f" {view.scores[q]}", style="bold")
    return t


def scores_table(game: Game, view: View, names: Sequence[str], tx: Texts) -> Table:
    """Scores with the per-category breakdown, supplies, missions and castles held."""
    cats = list(view.breakdown[0].keys()) if view.breakdown else []
    t = Table(title=tx("scores_title"), title_justify="left", box=box.SIMPLE_HEAD,
              pad_edge=False, collapse_padding=True)
    t.add_column(tx("col_player"), no_wrap=True)
    t.add_column(tx("col_total"), justify="right", style="bold")
    for c in cats:
        t.add_column(tx(f"cat_{c}"), justify="right")
    t.add_column(tx("col_supply"), justify="right")
    t.add_column(tx("col_placed"), justify="right")
    t.add_column(tx("col_missions"), justify="right")
    t.add_column(tx("col_castles"), justify="right")
    for q in range(view.players):
        marker = "▶ " if q == view.current_player else "  "
        if q in view.winners:
            marker = "★ "
        who = Text(marker)
        who.append_text(name_text(names, q))
        held = sum(1 for h in view.castle_holders if h == q)
        t.add_row(who, str(view.scores[q]), *(str(view.breakdown[q][c]) for c in cats),
                  str(view.supply_counts[q]), str(view.placed[q]),
                  str(view.mission_counts[q]), str(held))
    return t


def structures_text(game: Game, view: View, names: Sequence[str], tx: Texts) -> Text:
    """Castle holders, cathedral pieces (Scotland), tower tokens and visitors (Ireland)."""
    b = game.board
    lang = tx.lang
    out = Text()

    def who(seats: Sequence[int], empty: str = "—") -> Text:
        if not seats:
            return Text(empty, style="dim")
        w = Text()
        for i, q in enumerate(seats):
            if i:
                w.append(",")
            w.append_text(name_text(names, q))
        return w

    if b.castles:
        out.append(tx("castles_line", items="").rstrip())
        for c in b.castles:
            out.append(f"  {pick(c.name, lang)}: ")
            out.append_text(who([view.castle_holders[c.index]]
                                if view.castle_holders[c.index] >= 0 else [], tx("nobody")))
        out.append("\n")
    if b.cathedrals:
        out.append(tx("cathedrals_line", items="").rstrip())
        for k in b.cathedrals:
            out.append(f"  {pick(k.name, lang)}: ")
            out.append_text(who(view.cathedral_pieces[k.index]))
        out.append("\n")
    if b.towers:
        tokens = {t.id: t for t in game.tokens}
        out.append(tx("towers_line", items="").rstrip())
        for tw in b.towers:
            tok = tokens.get(view.tower_tokens[tw.index]) if tw.index < len(
                view.tower_tokens) else None
            what = "?" if tok is None else (
                f"+{tok.points}" if tok.kind == "points" else pick(tok.name, lang))
            out.append(f"  {pick(tw.name, lang)} [{what}]: ")
            out.append_text(who(view.tower_visits[tw.index]))
        out.append("\n")
    out.append(tx("deck_line", n=view.deck_count), style="dim")
    return out


def missions_panel(game: Game, view: View, names: Sequence[str], tx: Texts,
                   now: dict[str, bool] | None = None) -> RenderableType:
    """The seat's own missions with texts; on Ireland also the public display.

    ``now`` says, per own card id, whether it would be fulfilled on the board as it
    stands (computed by the caller from the seat's own view).
    """
    cards = {c.id: c for c in game.cards}
    lang = tx.lang
    parts: list[RenderableType] = []
    if game.board.is_ireland and view.display:
        t = Table(title=tx("public_missions"), title_justify="left", show_edge=False,
                  pad_edge=False, show_header=False)
        t.add_column("id", style="bold")
        t.add_column("pts", justify="right")
        t.add_column("text", overflow="fold")
        t.add_column("who")
        for mid in view.display:
            cd = cards[mid]
            by = view.fulfilled.get(mid, ())
            status = Text()
            if by:
                status.append(tx("fulfilled_by", who=""))
                for i, q in enumerate(by):
                    if i:
                        status.append(",")
                    status.append_text(name_text(names, q))
            else:
                status.append(tx("open"), style="dim")
            marked = [q for q in range(view.players) if mid in view.marks[q]]
            if marked:
                status.append("  " + tx("x2_by", who=""))
                for i, q in enumerate(marked):
                    if i:
                        status.append(",")
                    status.append_text(name_text(names, q))
            t.add_row(mid, f"{cd.values[0]}/{cd.values[1]}", pick(cd.text, lang), status)
        parts.append(t)
    if view.seat is not None:
        head = Text(tx("your_missions"), style="bold")
        parts.append(head)
        if not view.missions:
            parts.append(Text("  " + tx("no_missions"), style="dim"))
        for mid in view.missions:
            cd = cards[mid]
            # I-9: a secret card (Ireland included) pays only its first value.
            pts = (tx("mission_secret_value", a=cd.values[0])
                   if game.board.is_ireland else tx("mission_pts", pts=cd.points))
            line = Text(f"  {mid} ", style="bold")
            line.append(f"({pts}) ")
            line.append(pick(cd.text, lang))
            if now is not None and mid in now:
                line.append(f"  [{tx('now_fulfilled') if now[mid] else tx('now_not')}]",
                            style="green" if now[mid] else "dim")
            parts.append(line)
    return Group(*parts)


def legal_text(board: Board, view: View, tx: Texts) -> Text:
    """The legal spaces (or x2 choices) as a line of labels."""
    items = [a for a in view.legal_actions]
    # Labels sort by column then row, as a reader scans the map.
    def key(a: str) -> tuple[int, int, str]:
        p = parse_label(a)
        return (p[0], p[1], a) if p else (10**6, 0, a)

    items.sort(key=key)
    return Text(tx("legal_line", n=len(items), items=" ".join(items)))
