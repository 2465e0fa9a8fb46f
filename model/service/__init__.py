"""The answers the program gives, one function each: a hint (the plays of a roll or the cube decision),
an evaluation, a rollout, a match's analysis, the bot's move in a game. Each takes a position, the
dice, the cube and match state and a settings object, and returns a plain result; the command line,
the web API, UBGI, gnubg's external-player server and ``Bot`` call them and only format.

    query.py          what is asked: ``read_position``, ``read_dice``, ``Query`` (``query_of_text``,
                      ``query_from_object``), the cube state of the side on roll and its JSON
    hint.py           ``HintSettings``; ``hint`` (plays or cube decision), ``cube_hint``, ``evaluation``;
                      ``rank_positions``, the ranking ``hint`` and ``Bot.rank`` share
    rollout_settings.py ``RolloutSettings``, the one description of a rollout's settings
    rollout_answer.py ``roll_out``, ``rollout_answer`` / ``plan_rollout`` (the JSON), ``confirm_hint``
                      (``hint --rollout``), ``check_rollout``
    match_review.py   ``ReviewSettings``; ``analyse_match`` (model/analysis/review.py with a bot's network)
    game_turn.py      the bot's turn: ``bot_acts`` in an engine.game game against a person, and
                      ``BoardAgent`` (``AgentSettings``) on FIBS boards for serve
    ubgi_session.py   ``UbgiSession``: what UBGI's commands set, and its answers to ``go``

Layer: below model/bot.py (which calls it), above model/analysis and everything under it.
"""
