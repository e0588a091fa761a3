"""The client identity an endpoint may require (DESIGN.md section 14, ``mtls``): a TLS context
that presents one certificate and key in every handshake, and the digest of that certificate,
which is part of the pinned pool's origin key (a connection made with one identity never
carries a request of another, or of none).

The certificate and key reach OpenSSL through the public ``SSLContext.load_cert_chain``, which
reads a file: they are written to a file of mode 0600 in a private temporary directory (0700)
and both are removed as soon as the chain is loaded.
"""

from __future__ import annotations

import hashlib
import os
import ssl
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ClientIdentity", "certificate_digest", "load_client_chain"]


@dataclass(frozen=True, slots=True, repr=False)
class ClientIdentity:
    """A context presenting one client certificate; ``digest``: ``sha256:<hex>`` of its DER."""

    digest: str
    ssl_ctx: ssl.SSLContext

    def __repr__(self) -> str:
        return f"ClientIdentity({self.digest})"


def certificate_digest(certificate_pem: str) -> str:
    """``sha256:<hex>`` of the first certificate of a PEM chain (ValueError if none)."""
    marker = "-----END CERTIFICATE-----"
    end = certificate_pem.find(marker)
    if end < 0:
        raise ValueError("no PEM certificate")
    first = certificate_pem[: end + len(marker)]
    start = first.find("-----BEGIN CERTIFICATE-----")
    if start < 0:
        raise ValueError("no PEM certificate")
    der = ssl.PEM_cert_to_DER_cert(first[start:] + "\n")
    return "sha256:" + hashlib.sha256(der).hexdigest()


def load_client_chain(
    make_context: Callable[[], ssl.SSLContext], certificate_pem: str, private_key_pem: str
) -> ClientIdentity:
    """A new context from ``make_context`` that presents the chain; raises ``ssl.SSLError``
    (or ValueError) when the certificate or key does not load or they do not match."""
    digest = certificate_digest(certificate_pem)
    ctx = make_context()
    with tempfile.TemporaryDirectory(prefix="hookproof-client-") as folder:
        path = os.path.join(folder, "chain.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(certificate_pem.strip() + "\n" + private_key_pem.strip() + "\n")
        try:
            ctx.load_cert_chain(path)
        finally:
            os.unlink(path)
    return ClientIdentity(digest, ctx)
