"""banqi_engine: the rules of Chinese Dark Chess and a player that speaks them.

The rules live here and nowhere else: rule sets, positions, move generation,
the end of a game, perft. The referee, the protocol and the tests all use them.
"""
