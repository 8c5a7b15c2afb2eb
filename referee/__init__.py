"""The referee: one game between two DCTP engine processes, judged, timed and recorded.

It alone knows the hidden layout, judges every ply with ``banqi_engine``'s rules,
keeps both clocks, and writes each game's records the moment the game ends.
"""
