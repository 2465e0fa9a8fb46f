"""Self-play training: TD(lambda) actors and the learner (``td``), one-ply self-play (``one_ply``),
look-ahead targets (``labels``), race games from a pool of starts (``race_games``), the actors as Ray
actors in other processes or machines (``actors``) and the strength checks made during training
(``evaluation``).

Layer: above the arena, below the analysis.
"""
