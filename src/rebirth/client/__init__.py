"""The bot API's reference client (docs/bot-api.md): a program at a live game's seat.

:mod:`rebirth.client.remote` speaks the protocol (claim, stream, move; reconnect and resume);
:mod:`rebirth.client.policy` turns the project's bots, a user's ``Bot`` class or a function of
(observation, action mask) into a move. ``rebirth bot play`` (cli/bot.py) runs them. The server
never imports this package.
"""
