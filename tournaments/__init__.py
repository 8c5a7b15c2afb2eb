"""tournaments: round-robin tournaments between engines, their standings and statistics."""
