"""Authentication to the endpoint on every request (DESIGN.md section 14).

:class:`EndpointAuth` wraps one send to a subscription's endpoint (a challenge or a delivery):
no ``auth``, nothing added; ``header``, the static header; ``mtls``, the client identity the
handshake presents (the pinned pool keys connections by it); ``oauth2``, ``Authorization:
Bearer`` with a token from :class:`TokenCache`, and on a ``401`` one fresh token and one
resend. When no credential can be had the send is not made: the result is ``auth_unavailable``
(nothing sent, retried by the policy).

Token fetches are priced per credential (issue 46): the attempts that need a token at once
share one fetch; a fetch has a deadline shorter than an attempt's lease; a failed fetch's
reason is the answer for :data:`FAILURE_TTL_S` (attempts fail fast, the token server is not
asked again meanwhile).

No secret, key, token or token response goes into a log line, a result's detail or an event:
the logs name the subscription, the token URL's host and a reason code.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Final
from urllib.parse import quote, urlencode

import msgspec
import structlog

from hookproof.events.subscription_events import EndpointAuthRef
from hookproof.projections.subscriptions import SubscriptionState

from ..common.memo import BoundedMemo
from ..common.secret_scrub import REDACTED, scrubber
from ..egress import EgressResult, EgressTransport, FailureCode, Outcome
from ..egress.identity import ClientIdentity
from .materials import AuthMaterials, AuthMaterialUnavailable
from .spec import AuthSecret

__all__ = [
    "FAILURE_TTL_S",
    "FETCH_DEADLINE_S",
    "EndpointAuth",
    "Send",
    "TokenCache",
    "fetch_deadline",
    "token_lifetime",
]

log = structlog.get_logger("hookproof.endpoint_auth")

#: One send with the auth's extra headers and client identity.
Send = Callable[[list[tuple[str, str]], ClientIdentity | None], Awaitable[EgressResult]]

#: A token is dropped this long before it expires (at most a tenth of its lifetime).
EXPIRY_MARGIN_S: Final = 30.0
#: Lifetime assumed when the token response gives no ``expires_in``.
DEFAULT_LIFETIME_S: Final = 300.0
_TOKENS_MEMO: Final = 4_096
#: how long a failed fetch's reason is given to every attempt of that credential (seconds)
FAILURE_TTL_S: Final = 30.0
#: the longest a token fetch may take (seconds; :func:`fetch_deadline` shortens it)
FETCH_DEADLINE_S: Final = 15.0


class _TokenAnswer(msgspec.Struct, kw_only=True):
    access_token: str
    token_type: str = "Bearer"
    expires_in: float | None = None


def fetch_deadline(connect_s: float, request_s: float, lease_margin_s: float) -> float:
    """A token fetch's deadline: a connect and an answer, at most a third of the margin an
    attempt's lease leaves beyond its own send (so fetch and send fit in the lease; pure)."""
    return max(1.0, min(FETCH_DEADLINE_S, connect_s + request_s, lease_margin_s / 3))


def token_lifetime(expires_in: float | None) -> float:
    """How long a token is used: its lifetime less a margin (pure)."""
    life = DEFAULT_LIFETIME_S if expires_in is None or expires_in <= 0 else float(expires_in)
    return max(0.0, life - min(EXPIRY_MARGIN_S, life / 10))


class TokenCache:
    """OAuth2 client-credentials tokens per credential (material id), fetched through the
    egress transport (the token URL is vetted like an endpoint): one fetch at a time each,
    shared by every caller waiting for it, bounded by ``deadline_s``; a failure is kept
    ``failure_ttl_s``."""

    def __init__(
        self,
        transport: EgressTransport,
        *,
        clock: Callable[[], float] = time.monotonic,
        deadline_s: float = FETCH_DEADLINE_S,
        failure_ttl_s: float = FAILURE_TTL_S,
    ) -> None:
        self.transport = transport
        self.clock = clock
        self.deadline_s = deadline_s
        self.failure_ttl_s = failure_ttl_s
        self.fetches = 0
        self._tokens: BoundedMemo[str, tuple[str, float]] = BoundedMemo(_TOKENS_MEMO)
        #: material id -> (reason, until): a failed fetch, answered without asking again
        self._failed: BoundedMemo[str, tuple[str, float]] = BoundedMemo(_TOKENS_MEMO)
        self._fetching: dict[str, asyncio.Task[str]] = {}

    def drop(self, material_id: str, token: str) -> None:
        """Forget ``token`` (the endpoint refused it) unless a newer one replaced it."""
        held = self._tokens.get(material_id)
        if held is not None and held[0] == token:
            self._tokens.put(material_id, ("", 0.0))

    async def token(self, subscription_id: str, ref: EndpointAuthRef, secret: AuthSecret) -> str:
        """A valid token, or raises :class:`_NoToken` with a reason code (at once while a
        failed fetch of this credential is recent)."""
        mid = ref.material_id
        held = self._tokens.get(mid)
        if held is not None and held[0] and held[1] > self.clock():
            return held[0]
        failed = self._failed.get(mid)
        if failed is not None and failed[1] > self.clock():
            raise _NoToken(failed[0])
        task = self._fetching.get(mid)
        if task is None:
            task = asyncio.ensure_future(self._fetch_shared(mid, subscription_id, secret))
            self._fetching[mid] = task
            task.add_done_callback(lambda done: self._fetched(mid, done))
        # a caller that gives up (its attempt cancelled) leaves the fetch to the others
        return await asyncio.shield(task)

    def _fetched(self, material_id: str, task: asyncio.Task[str]) -> None:
        if self._fetching.get(material_id) is task:
            del self._fetching[material_id]
        if not task.cancelled():
            task.exception()  # retrieved here: every waiter may have gone

    async def _fetch_shared(
        self, material_id: str, subscription_id: str, secret: AuthSecret
    ) -> str:
        try:
            async with asyncio.timeout(self.deadline_s):
                token, lifetime = await self._fetch(subscription_id, secret)
        except TimeoutError:
            self._fail(material_id, subscription_id, "token_fetch_timeout")
            raise _NoToken("token_fetch_timeout") from None
        except _NoToken as no:
            self._fail(material_id, subscription_id, no.reason)
            raise
        self._tokens.put(material_id, (token, self.clock() + lifetime))
        self._failed.put(material_id, ("", 0.0))
        return token

    def _fail(self, material_id: str, subscription_id: str, reason: str) -> None:
        self._failed.put(material_id, (reason, self.clock() + self.failure_ttl_s))
        log.warning(
            "endpoint_auth_token_failed",
            subscription_id=subscription_id,
            reason=reason,
            retry_in_s=self.failure_ttl_s,
        )

    async def _fetch(self, subscription_id: str, secret: AuthSecret) -> tuple[str, float]:
        assert secret.token_url and secret.client_id is not None
        form = {"grant_type": "client_credentials"}
        if secret.scope:
            form["scope"] = secret.scope
        if secret.audience:
            form["audience"] = secret.audience
        # RFC 6749 section 2.3.1: each form-urlencoded, then HTTP Basic
        pair = f"{quote(secret.client_id, safe='')}:{quote(secret.client_secret or '', safe='')}"
        basic = base64.b64encode(pair.encode()).decode("ascii")
        self.fetches += 1
        result = await self.transport.post(
            secret.token_url,
            urlencode(form).encode("ascii"),
            [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Accept", "application/json"),
                ("Authorization", f"Basic {basic}"),
            ],
        )
        if not result.ok:
            reason = result.code.value if result.code is not None else f"status_{result.status}"
            raise _NoToken(reason)
        try:
            answer = msgspec.json.decode(result.body, type=_TokenAnswer)
        except msgspec.DecodeError:
            raise _NoToken("token_response_invalid") from None
        if answer.token_type.lower() != "bearer" or not _header_safe(answer.access_token):
            raise _NoToken("token_response_invalid")
        log.info(
            "endpoint_auth_token_fetched",
            subscription_id=subscription_id,
            token_host=result.host,
            expires_in=answer.expires_in,
        )
        return answer.access_token, token_lifetime(answer.expires_in)


class _NoToken(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _header_safe(token: str) -> bool:
    return bool(token) and token.isascii() and token.isprintable() and " " not in token


class EndpointAuth:
    """Applies a subscription's ``auth`` to one send (see the module docstring)."""

    def __init__(
        self,
        materials: AuthMaterials,
        transport: EgressTransport,
        *,
        fetch_deadline_s: float = FETCH_DEADLINE_S,
    ) -> None:
        self.materials = materials
        self.transport = transport
        self.tokens = TokenCache(transport, deadline_s=fetch_deadline_s)

    async def send(self, state: SubscriptionState, url: str, send: Send) -> EgressResult:
        """``send`` with the subscription's credential (``url``: for an unavailable result);
        the result's redirect target and detail scrubbed of it (:func:`_scrubbing`)."""
        ref = state.config.auth
        if ref is None:
            return await send([], None)
        send = _scrubbing(send)
        sid = state.subscription_id
        try:
            secret = await self.materials.open(sid, ref)
        except AuthMaterialUnavailable:
            return _unavailable(url, sid, "material_unavailable")
        if secret.type == "header":
            assert secret.name is not None and secret.value is not None
            return await send([(secret.name, secret.value)], None)
        if secret.type == "mtls":
            assert secret.certificate_pem is not None and secret.private_key_pem is not None
            identity = self.transport.client_identity(
                secret.certificate_pem, secret.private_key_pem
            )
            return await send([], identity)
        try:
            token = await self.tokens.token(sid, ref, secret)
        except _NoToken as no:
            return _unavailable(url, sid, no.reason)
        result = await send([("Authorization", f"Bearer {token}")], None)
        if result.status != 401:
            return result
        # refused: one fresh token and one resend (the 401's request was not applied)
        self.tokens.drop(ref.material_id, token)
        log.info("endpoint_auth_token_refused", subscription_id=sid)
        try:
            token = await self.tokens.token(sid, ref, secret)
        except _NoToken as no:
            return _unavailable(url, sid, no.reason)
        return await send([("Authorization", f"Bearer {token}")], None)


def _scrubbing(send: Send) -> Send:
    """``send`` whose result's ``location`` (a peer's redirect target: stored with the attempt
    and with a failed challenge) and ``detail`` (logged) hold no echo of the credentials that
    request carried, in any case or encoding (issue 46; the answer's body and headers are
    scrubbed where they are kept: ``destinations/https/response_excerpt.py``)."""

    async def scrubbed(
        extra: list[tuple[str, str]], identity: ClientIdentity | None
    ) -> EgressResult:
        result = await send(extra, identity)
        creds = scrubber(value for _, value in extra)
        location = None if result.location is None else creds.text(result.location, REDACTED)
        detail = creds.text(result.detail, REDACTED)
        if location == result.location and detail == result.detail:
            return result
        return replace(result, location=location, detail=detail)

    return scrubbed


def _unavailable(url: str, subscription_id: str, reason: str) -> EgressResult:
    log.warning("endpoint_auth_unavailable", subscription_id=subscription_id, reason=reason)
    return EgressResult(
        outcome=Outcome.NOT_SENT,
        code=FailureCode.AUTH_UNAVAILABLE,
        url=url,
        host="",
        port=0,
        detail=f"no credential for the endpoint ({reason})",
    )
