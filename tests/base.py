"""Helpers shared by test modules."""

from django.db import connection


def explain(statement: str, params: dict) -> str:
    """The plan PostgreSQL would use for a statement, with sequential scans priced out."""
    with connection.cursor() as cursor:
        # Tiny test tables make a sequential scan cheapest; the point is that the index *can* serve.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + statement, params)
        return "\n".join(row[0] for row in cursor.fetchall())
