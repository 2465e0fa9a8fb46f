"""Self-play training: TD(lambda) actors and the learner (``td``), the actors as Ray actors in other
processes or machines (``actors``) and the strength checks made during training (``evaluation``).

Imports: ``engine``, ``model.net``, ``model.players``, ``model.arena``.
"""
