"""Games between two players, batched, with mirrored dice: cubeless (``cubeless``) and with the cube
or whole matches (``cubeful``).

Imports: ``engine``, ``model.players``, ``model.cube``.
"""
