"""Networks, equity, players and cube theory; asks engine/ for positions.

``from model import Bot`` is the public entry (model/bot.py); it is imported lazily so that the
light modules (equity, features) load without the rest.
"""


def __getattr__(name):
    if name == "Bot":
        from model.bot import Bot

        return Bot
    raise AttributeError(f"module 'model' has no attribute {name!r}")
