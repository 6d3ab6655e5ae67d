"""Model instances from hand-written SQL, for the reads every API request makes.

`Manager.raw()` maps the cursor's columns onto the model and builds each instance through a
`RawQuerySet`, every call; for the two reads of each API request (its key, the bases it may
search) that machinery cost more than the statements themselves (0.23 of the key's 0.42 ms on the
bench machine). Here the statement selects `select_list(model)` — every concrete column, in field
order — and the rows become instances through `Model.from_db`, exactly what the ORM does after a
query, so they behave as loaded ones (`save()` updates, deferred nothing).
"""

from django.db import connection, models


def select_list(model: type[models.Model], alias: str) -> str:
    """`alias.col, …` for every concrete field of `model`, in the order `instances` reads them."""
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


def instances(model: type[models.Model], query: str, params) -> list[models.Model]:
    """The rows of `query` (whose select list is `select_list(model, …)`) as instances of `model`."""
    names = [field.attname for field in model._meta.concrete_fields]
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return [model.from_db(connection.alias, names, row) for row in cursor.fetchall()]
