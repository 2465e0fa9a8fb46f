"""Tools beside the rules: seeded random positions (``sample``), the generator benchmark (``bench``),
and the command lines' one-line usage errors (``cli``).

Imports: ``engine`` only (OpenSpiel lazily, for the benchmark's comparison).
"""
