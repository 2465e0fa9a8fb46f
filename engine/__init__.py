"""The rules of backgammon and long nardi, and nothing about nets or what a position is worth.

Rules: ``board`` (int8 positions in the mover's frame), ``rules`` (single-die predicates),
``movegen`` (the batched generator of legal plays), ``notation`` (plays in and out as text),
``match`` / ``cube_state`` / ``game`` (match score, the cube and its owner, resignations, game flow),
``dice`` (dice streams as a pure function of seed, stream and throw) and ``groups`` (choices among
the generator's children, grouped by parent).
``formats/`` holds every way a position leaves or enters the program; ``tools/`` the benchmark, the
seeded position sampler and what every command line shares (one-line usage errors), kept apart from
the rules.

The lowest layer: numpy and the standard library only; nothing from ``model`` or ``nardibot``
(pyproject.toml's import contracts, tests/test_layers.py).
"""
