"""The HTTP floor of `bin/serve` with its threads waiting on kept connections and without.

    .venv/bin/python bench/floor.py                           # PORTAL_WEB_LINGER 0 against 0.005
    .venv/bin/python bench/floor.py --linger 0,0.002,0.005 --connections 32

What an HTTP request costs before any API work (`GET /healthz`, which the first middleware
answers: gunicorn, Django's handler, the load generator — bench/load.py's "HTTP floor"), through
one `bin/serve` per `PORTAL_WEB_LINGER` value (`portal/web_worker.py`: how long a thread that
answered a kept-alive connection waits for its next request before handing it back to gunicorn's
poller; 0 is gunicorn's own behaviour), all up at once and driven in interleaved rounds by the
same load generator (bench/http_load.py: `--connections` keep-alive connections). Prints the
machine's CPU per request (every process: /proc/stat), requests/s and the load generator's own
CPU per request, medians of the rounds. With more connections than the servers' threads
(`--connections` over 2 × 4), a request is usually waiting for a thread, so threads do not wait
and both settings should cost the same.
"""

import argparse
import statistics
import sys
import time

from common import database_url, machine_cpu_seconds, setup_django
from http_load import Connections, healthz_request
from load import DB_NAME, start_server, stop_server


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--linger", default="0,0.005", help="PORTAL_WEB_LINGER values, comma-separated")
    parser.add_argument("--connections", type=int, default=8, help="keep-alive connections of the load generator")
    parser.add_argument("--requests", type=int, default=3000, help="requests per setting and round")
    parser.add_argument("--rounds", type=int, default=5)
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_django(DB_NAME)
    env = {"DATABASE_URL": database_url(), "PORTAL_WEB_WORKERS": "2", "PORTAL_WEB_THREADS": "4",
           "PORTAL_MIGRATE_ON_START": "false"}
    settings = [value.strip() for value in args.linger.split(",") if value.strip()]
    servers = {linger: start_server({**env, "PORTAL_WEB_LINGER": linger}) for linger in settings}
    figures: dict[str, list[tuple[float, float, float]]] = {linger: [] for linger in settings}
    try:
        clients = {linger: Connections(port, args.connections, healthz_request(port))
                   for linger, (_, port) in servers.items()}
        for client in clients.values():
            client.run([None] * 200)  # connections open, every thread of the servers started
        for r in range(args.rounds):
            for linger in settings[::1 if r % 2 == 0 else -1]:
                machine, own = machine_cpu_seconds(), time.process_time()
                latencies, failures, seconds = clients[linger].run([None] * args.requests)
                if failures:
                    raise SystemExit(f"{failures} requests failed")
                figures[linger].append((1000 * (machine_cpu_seconds() - machine) / len(latencies),
                                        len(latencies) / seconds,
                                        1000 * (time.process_time() - own) / len(latencies)))
    finally:
        for server, _ in servers.values():
            stop_server(server)
    print(f"\nGET /healthz through bin/serve (2 processes × 4 threads), {args.connections} keep-alive connections, "
          f"{args.requests} requests × {args.rounds} interleaved rounds per setting (medians of the rounds)\n")
    print("| PORTAL_WEB_LINGER | machine CPU ms / request | req/s | load generator CPU ms / req | per round (CPU) |")
    print("|---|---|---|---|---|")
    for linger, rows in figures.items():
        cpu, rate, client = (statistics.median(column) for column in zip(*rows, strict=True))
        print(f"| {linger} | {cpu:.3f} | {rate:.0f} | {client:.3f} | {', '.join(f'{row[0]:.2f}' for row in rows)} |")


if __name__ == "__main__":
    sys.exit(main())
