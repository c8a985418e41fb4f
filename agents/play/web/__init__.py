"""``cardsuite serve``: a local web table for playing, watching and replaying games.

The app (`cardsuite.agents.play.web.app`) is Starlette served by uvicorn,
from the ``web`` extra (``pip install cardsuite[web]``); `requests` checks
what a request holds before any work. Every game lives in the server
process only (`sessions`, held by the `store`; `limits` bounds the work); a
page asks for its view as JSON and draws it with the plain HTML/JS/CSS of
``static/``. A seat's page is built by `models.seat_model`: the table with
every hand removed, plus that seat's own hand read from its observation, so
no other player's hidden card ever leaves the server for it.
"""
