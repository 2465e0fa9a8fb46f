"""The networks and everything that scores a position: the ``Evaluator`` interface and the exact
endgames behind it (``evaluator``), inputs (``features``, ``contact_inputs`` with its tables
``contact_tables``, ``contact_hits``, ``nardi_inputs``, ``shots``), the net's shape (``config``), the torch
module (``network``), numpy inference without torch (``inference``), the lookup-table forward pass
(``table_forward``), the race net (``race``), the ensemble mean (``ensemble``), checkpoints
(``checkpoint``) and nets loaded for play (``loader``), the named outputs and cubeless equity
(``equity``), pubeval's linear score (``pubeval``), the bear-off databases (``bearoff``,
``bearoff_two_sided``), the torch device the command lines choose (``device``) and joining or starting
Ray (``cluster``).

Layer: above ``model.runtime`` and ``engine``, below cube theory (pyproject.toml's contracts). torch only
in ``network``, ``table_forward`` and, lazily, ``checkpoint`` and ``device``; Ray only, lazily, in
``cluster``.
"""
