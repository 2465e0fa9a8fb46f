"""Analysis of whole matches: ``review`` replays a .mat or .sgf record and rates every checker play, cube
decision and roll with the one policy (model/players/cube_policy.py); ``marks`` holds gnubg's thresholds and
the per-player statistics; ``rollouts`` rolls out the worst decisions again.

Layer: above training, below the service.
"""
