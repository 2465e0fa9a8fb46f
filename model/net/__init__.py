"""The network: inputs (``features``, ``shots``), its shape (``config``), the torch module
(``network``), numpy inference without torch (``inference``), checkpoints (``checkpoint``) and the
named outputs and cubeless equity (``equity``).

Imports: ``engine``; torch only in ``network`` and, lazily, in ``checkpoint``. No players, no cube.
"""
