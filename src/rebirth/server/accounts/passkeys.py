"""Passkeys (WebAuthn, checked by py_webauthn): registered on the account page, then a
sign-in without e-mail (issue 25 item 1; docs/server.md, threat model).

Each ceremony's challenge is made and kept by the server (``webauthn_challenges``, looked up
by the digest of a random handle the page sends back), lives :data:`CHALLENGE_SECONDS` and is
spent once: a conditional delete, so a replayed answer finds nothing. The relying party is the
public URL's host (else the request's), the expected origin the server's own. A sign-in asks
for a discoverable credential (no user name typed); the credential names its account.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import webauthn
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from rebirth.server.accounts.store import Account
from rebirth.server.persistence.accounts import passkeys, webauthn_challenges
from rebirth.server.persistence.store import Store, hash_token

CHALLENGE_SECONDS = 300.0
"""How long a ceremony's challenge may be answered (once)."""

MAX_PASSKEYS = 20
"""Passkeys one account may register."""


class PasskeyRefused(Exception):
    """A ceremony that did not verify (a spent or unknown challenge, a bad signature, ...)."""


@dataclass(frozen=True)
class RelyingParty:
    """Who the passkeys are for: the RP id (a host name) and the page origin they are used on."""

    id: str
    origin: str

    @staticmethod
    def of(base: str) -> RelyingParty:
        """From the server's base URL (the public URL, else the request's own)."""
        u = urlsplit(base)
        host = (u.hostname or "localhost").lower()
        return RelyingParty(host, f"{u.scheme}://{u.netloc}")


def _keep(store: Store, challenge: bytes, account: str | None) -> str:
    handle = secrets.token_urlsafe(24)
    now = time.time()
    with store.tx() as c:
        c.execute(delete(webauthn_challenges).where(webauthn_challenges.c.expires < now))
        c.execute(insert(webauthn_challenges).values(
            hash=hash_token(handle), challenge=bytes_to_base64url(challenge), account=account,
            expires=now + CHALLENGE_SECONDS))
    return handle


def _spend(store: Store, handle: str, account: str | None) -> bytes:
    """The challenge of ``handle``, once (for the same account: a registration's is its own)."""
    if not handle or len(handle) > 64:
        raise PasskeyRefused("no challenge")
    h = hash_token(handle)
    with store.tx() as c:
        row = c.execute(select(webauthn_challenges).where(webauthn_challenges.c.hash == h)).first()
        gone = c.execute(delete(webauthn_challenges).where(webauthn_challenges.c.hash == h)).rowcount
    if row is None or gone != 1 or row.expires < time.time() or row.account != account:
        raise PasskeyRefused("no challenge")
    return base64url_to_bytes(row.challenge)


def registration_options(store: Store, rp: RelyingParty, account: Account) -> tuple[str, dict[str, Any]]:
    """Start registering a passkey for ``account``: ``(handle, options JSON)``."""
    with store.engine.connect() as c:
        have = [r.credential_id for r in c.execute(select(passkeys.c.credential_id)
                                                   .where(passkeys.c.account == account.id))]
    if len(have) >= MAX_PASSKEYS:
        raise PasskeyRefused("too many")
    opts = webauthn.generate_registration_options(
        rp_id=rp.id, rp_name="Rebirth", user_id=account.id.encode(), user_name=account.name,
        user_display_name=account.name,
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(cid)) for cid in have],
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED))
    handle = _keep(store, opts.challenge, account.id)
    return handle, json.loads(webauthn.options_to_json(opts))


def register(store: Store, rp: RelyingParty, account: Account, handle: str, credential: dict[str, Any],
             label: str) -> dict[str, Any]:
    """Finish a registration: the passkey is the account's (``{"id", "label", "created"}``)."""
    challenge = _spend(store, handle, account.id)
    try:
        got = webauthn.verify_registration_response(credential=credential, expected_challenge=challenge,
                                                    expected_rp_id=rp.id, expected_origin=rp.origin)
    except Exception as exc:  # py_webauthn raises several types; any of them refuses
        raise PasskeyRefused(type(exc).__name__) from None
    cid = bytes_to_base64url(got.credential_id)
    now = time.time()
    try:
        with store.tx() as c:
            c.execute(insert(passkeys).values(credential_id=cid, account=account.id,
                                              public_key=got.credential_public_key,
                                              sign_count=got.sign_count, created=now, label=label[:64]))
    except IntegrityError:
        raise PasskeyRefused("known credential") from None
    return {"id": cid, "label": label[:64], "created": round(now, 3)}


def signin_options(store: Store, rp: RelyingParty) -> tuple[str, dict[str, Any]]:
    """Start a passkey sign-in (a discoverable credential): ``(handle, options JSON)``."""
    opts = webauthn.generate_authentication_options(rp_id=rp.id,
                                                    user_verification=UserVerificationRequirement.PREFERRED)
    handle = _keep(store, opts.challenge, None)
    return handle, json.loads(webauthn.options_to_json(opts))


def verify_signin(store: Store, rp: RelyingParty, handle: str, credential: dict[str, Any]) -> str:
    """Finish a passkey sign-in: the account id it proves (the sign count moves on)."""
    challenge = _spend(store, handle, None)
    cid = credential.get("id")
    if not isinstance(cid, str) or len(cid) > 512:
        raise PasskeyRefused("no id")
    with store.engine.connect() as c:
        row = c.execute(select(passkeys).where(passkeys.c.credential_id == cid)).first()
    if row is None:
        raise PasskeyRefused("unknown credential")
    try:
        got = webauthn.verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp.id,
            expected_origin=rp.origin, credential_public_key=bytes(row.public_key),
            credential_current_sign_count=int(row.sign_count))
    except Exception as exc:  # any failed check refuses
        raise PasskeyRefused(type(exc).__name__) from None
    with store.tx() as c:
        c.execute(update(passkeys).where(passkeys.c.credential_id == cid)
                  .values(sign_count=got.new_sign_count))
    return str(row.account)


def passkeys_of(store: Store, account: str) -> list[dict[str, Any]]:
    """The account's passkeys, oldest first."""
    with store.engine.connect() as c:
        rows = c.execute(select(passkeys.c.credential_id, passkeys.c.label, passkeys.c.created)
                         .where(passkeys.c.account == account).order_by(passkeys.c.created)).all()
    return [{"id": r.credential_id, "label": r.label, "created": round(r.created, 3)} for r in rows]


def remove(store: Store, account: str, credential_id: str) -> bool:
    """Forget one passkey of the account (False: it has no such passkey)."""
    with store.tx() as c:
        return bool(c.execute(delete(passkeys).where(passkeys.c.account == account,
                                                     passkeys.c.credential_id == credential_id)).rowcount)
