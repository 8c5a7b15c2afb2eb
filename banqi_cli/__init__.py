"""The command line: a thin click layer over functions of the other packages.

Nothing imports this package; it imports them all.
"""
