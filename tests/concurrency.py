"""Clients of a test that must start at the same moment."""

import threading


def at_once(count: int, work) -> list:
    """`work()` in `count` threads released together; what each returned, in the order they finished
    (a thread that raised is missing from the list, and its traceback printed)."""
    results: list = []
    start = threading.Barrier(count)

    def run():
        start.wait()
        results.append(work())

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
