"""The network: inputs (``features``, ``shots``), its shape (``config``), the torch module
(``network``), numpy inference without torch (``inference``), checkpoints (``checkpoint``) and the
named outputs and cubeless equity (``equity``), the torch device that the command lines choose
(``device``), joining or starting Ray for the commands that use it (``cluster``), the bear-off
databases (``bearoff``, ``bearoff_two_sided``) and a net that answers bear-offs from them
(``evaluator.ExactEndgames``).

Imports: ``engine``; torch only in ``network`` and, lazily, in ``checkpoint`` and ``device``; Ray only,
lazily, in ``cluster``. No players, no cube.
"""
