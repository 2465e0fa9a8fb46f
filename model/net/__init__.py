"""The network: inputs (``features``, ``shots``), its shape (``config``), the torch module
(``network``), numpy inference without torch (``inference``), checkpoints (``checkpoint``) and the
named outputs and cubeless equity (``equity``), and the torch device that the command lines choose
(``device``).

Imports: ``engine``; torch only in ``network`` and, lazily, in ``checkpoint`` and ``device``. No players, no cube.
"""
