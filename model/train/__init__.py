"""Self-play training: TD(lambda) actors and the learner (``td``) and the strength checks made
during training (``evaluation``).

Imports: ``engine``, ``model.net``, ``model.players``, ``model.arena``.
"""
