"""Session 6 (issue 23): does aiohttp's public client (``ClientSession`` + ``TCPConnector``,
keep-alive) read bytes written on an idle pooled connection as the next request's answer?

A raw asyncio/ssl server on 127.0.0.1 (trustme): ``/a`` answers 200 ``a`` and 0.3 s later writes
an unsolicited ``HTTP/1.1 200`` (body ``stale``) on the idle connection; ``/b`` answers 500
``b``. The client posts ``/a``, waits 0.45 s, posts ``/b`` and prints what it read. Loopback
only; a probe, not a test.

    python bench/probe_aiohttp_stale.py
"""

from __future__ import annotations

import asyncio
import ssl

import aiohttp
import trustme

STALE = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale"


async def main() -> None:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    tasks: set[asyncio.Task[None]] = set()

    async def stale(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.3)
        writer.write(STALE)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = head.lower().split(b"content-length: ")[1].split(b"\r\n")[0]
                await reader.readexactly(int(length))
                if head.split(b" ")[1] == b"/a":
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na")
                    task = asyncio.get_running_loop().create_task(stale(writer))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                else:
                    writer.write(b"HTTP/1.1 500 X\r\nContent-Length: 1\r\n\r\nb")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=server_ctx)
    port = server.sockets[0].getsockname()[1]
    connector = aiohttp.TCPConnector(ssl=client_ctx)
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.post(f"https://127.0.0.1:{port}/a", data=b"x") as resp:
            print("a:", resp.status, await resp.read())
        await asyncio.sleep(0.45)
        async with session.post(f"https://127.0.0.1:{port}/b", data=b"x") as resp:
            print("b:", resp.status, await resp.read(), "(the server sent 500 b'b' for it)")
    print("aiohttp", aiohttp.__version__)
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
