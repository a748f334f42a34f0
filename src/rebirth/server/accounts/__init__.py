"""Optional player accounts (issue 25): sign-in codes, sessions, passkeys and the seats an
account holds (tables in :mod:`rebirth.server.persistence.accounts`; docs/server.md)."""
