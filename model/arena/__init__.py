"""Games between two players, batched, with mirrored dice: cubeless (``cubeless``) and with the cube
or whole matches (``cubeful``), both over the games-in-flight pieces of ``pool`` (slots dealt games
or matches, the mirrored dice streams, one select call per player), which self-play shares; and
``benchmark``, the checker-play benchmark: a player's picks on stored positions judged by gnubg 2-ply.

Imports: ``engine``, ``model.players``, ``model.cube``.
"""
