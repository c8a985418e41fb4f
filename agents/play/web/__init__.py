"""``cardsuite serve``: a local web table for playing, watching and replaying games.

Starlette and uvicorn, from the ``web`` extra; the modules are listed in
``docs/web.md`` ("The JSON API"). A seat's page is sent only what that seat
may see (`models.seat_model`).
"""
