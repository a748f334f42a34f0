"""Rules help: a short summary and the rulings players most often get wrong (RULES.md,
"Rulings to explain to players"). The sentences are catalog entries ``rules.summary.<id>``,
``rules.ruling.<id>`` and ``rules.head.*`` (see ``docs/messages.md``)."""

from __future__ import annotations

from rebirth.engine.messages import render_message

SUMMARY: tuple[str, ...] = ('P-1', 'P-2', 'P-3', 'F-1', 'T-3', 'C-1', 'K-1', 'I-5', 'E-2')
"""The RULES.md ids of the summary, in the order they are told."""

RULINGS: tuple[str, ...] = ('K-3', 'C-3', 'S-2', 'F-1', 'T-4', 'C-2', 'I-8')
"""The RULES.md ids of the rulings most often played wrong, in order."""


def rules_text(lang: str) -> str:
    """The summary and the rulings as plain text in ``lang``."""

    def say(key: str) -> str:
        return render_message(key, {}, lang, ())

    lines = [say("rules.head.summary")]
    lines += [f"  [{rid}] {say(f'rules.summary.{rid}')}" for rid in SUMMARY]
    lines += ["", say("rules.head.rulings")]
    lines += [f"  {i}. [{rid}] {say(f'rules.ruling.{rid}')}" for i, rid in enumerate(RULINGS, 1)]
    return "\n".join(lines)
