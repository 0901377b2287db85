#!/usr/bin/env python3
"""A TCP relay on loopback that treats connections the way a phone's link does, for measuring
resumable uploads (this machine's kernel has no netem, so the link is made here, in user space).

    impaired_relay.py --listen PORT --to PORT[,PORT…] --stats FILE [--reset-every BYTES]
                      [--delay-ms MS] [--stall-percent P] [--stall-ms MS] [--rate BYTES]

Each connection goes to the next --to port in turn (so a resumed upload can land on another
server). --reset-every resets the connection (RST) whenever that many bytes went upstream since
the last reset; --delay-ms delays every chunk by that much each way (twice it is the round trip
added); --stall-percent pauses a chunk for --stall-ms with that chance, standing in for the
retransmission a lost segment costs; --rate caps the upstream bytes a second. Listens and connects
on 127.0.0.1 only. The bytes that went upstream (what the client put on the wire) and the
connections and resets are written to --stats as JSON five times a second.
"""
import argparse
import asyncio
import itertools
import json
import os
import random
import socket
import struct
import time


class Relay:
    def __init__(self, args):
        self.args = args
        self.targets = itertools.cycle(int(port) for port in args.to.split(","))
        self.upstream = 0
        self.downstream = 0
        self.connections = 0
        self.resets = 0
        self.since_reset = 0
        self.open = set()

    def save(self):
        # Whole or not at all: a reader between the truncation and the write would see no figures.
        with open(self.args.stats + ".new", "w") as stats:
            json.dump({"upstream_bytes": self.upstream, "downstream_bytes": self.downstream,
                       "connections": self.connections, "resets": self.resets}, stats)
        os.replace(self.args.stats + ".new", self.args.stats)

    async def handle(self, client_reader, client_writer):
        self.connections += 1
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", next(self.targets))
        except OSError:
            client_writer.close()
            return
        # Small buffers, as a link holds: the bytes counted upstream are the bytes on their way,
        # not megabytes parked in loopback's buffers that a reset throws away.
        for writer in (client_writer, server_writer):
            writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
            writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            writer.transport.set_write_buffer_limits(high=64 * 1024)
        pair = (client_writer, server_writer)
        self.open.add(pair)
        await asyncio.gather(self.pipe(client_reader, server_writer, upstream=True),
                             self.pipe(server_reader, client_writer, upstream=False), return_exceptions=True)
        self.open.discard(pair)
        for writer in pair:
            writer.close()
        self.save()

    async def pipe(self, reader, writer, upstream):
        """Forwards what `reader` receives to `writer`: each chunk released --delay-ms after it
        arrived (chunks in flight meanwhile, as on a long link), some stalled, upstream paced."""
        args = self.args
        # Chunks in flight: a long link holds many; a short one little more than the sockets do.
        flight = asyncio.Queue(maxsize=64 if args.delay_ms else 1)

        async def receive():
            started, received = time.monotonic(), 0
            while True:
                chunk = await reader.read(64 * 1024)
                if upstream:
                    # What the client put on the wire, whether or not it gets through.
                    self.upstream += len(chunk)
                if upstream and args.rate and chunk:
                    received += len(chunk)
                    ahead = received / args.rate - (time.monotonic() - started)
                    if ahead > 0:
                        await asyncio.sleep(ahead)
                await flight.put((time.monotonic() + args.delay_ms / 1000, chunk))
                if not chunk:
                    return

        receiving = asyncio.ensure_future(receive())
        try:
            while True:
                due, chunk = await flight.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                if args.stall_percent and random.random() * 100 < args.stall_percent:
                    await asyncio.sleep(args.stall_ms / 1000)
                writer.write(chunk)
                await writer.drain()
                if upstream:
                    self.since_reset += len(chunk)
                    if args.reset_every and self.since_reset >= args.reset_every:
                        self.since_reset = 0
                        self.resets += 1
                        self.reset_all()
                        return
                else:
                    self.downstream += len(chunk)
        except (ConnectionError, OSError):
            return
        finally:
            receiving.cancel()

    def reset_all(self):
        """Ends every connection with a reset, as a dropped cellular link does."""
        for pair in list(self.open):
            for writer in pair:
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--to", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--reset-every", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0)
    parser.add_argument("--stall-percent", type=float, default=0)
    parser.add_argument("--stall-ms", type=float, default=300)
    parser.add_argument("--rate", type=float, default=0)
    args = parser.parse_args()
    relay = Relay(args)
    relay.save()
    server = await asyncio.start_server(relay.handle, "127.0.0.1", args.listen)
    async with server:
        while True:
            await asyncio.sleep(0.2)
            relay.save()


if __name__ == "__main__":
    asyncio.run(main())
