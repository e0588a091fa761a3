"""Is the API's listen address free? Asked once before ``serve`` starts anything (the embedded
Postgres, the workers), so a port in use is one line and an exit, not a crash loop."""

from __future__ import annotations

import errno
import socket

from hookproof.errors import ConfigurationError

__all__ = ["check_listen_free", "listen_in_use"]


def listen_in_use(host: str, port: int) -> ConfigurationError:
    """The one-line error for ``host:port`` taken by another process."""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return ConfigurationError(
        f"cannot listen on {shown}: port {port} is already in use (another hookproof serve?);"
        f" set HOOKPROOF_LISTEN to a free address:port, e.g. HOOKPROOF_LISTEN={host}:{port + 1}"
        if ":" not in host
        else f"cannot listen on {shown}: port {port} is already in use (another hookproof"
        f" serve?); set HOOKPROOF_LISTEN to a free address:port",
        code="listen_address_in_use",
        field="HOOKPROOF_LISTEN",
    )


def check_listen_free(host: str, port: int) -> None:
    """Bind ``host:port`` as the API will (SO_REUSEADDR, no SO_REUSEPORT) and let it go;
    :class:`ConfigurationError` when it is taken or cannot be bound at all."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise listen_in_use(host, port) from exc
        raise ConfigurationError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc};"
            " set HOOKPROOF_LISTEN to an address of this machine",
            code="listen_address_invalid",
            field="HOOKPROOF_LISTEN",
        ) from exc
