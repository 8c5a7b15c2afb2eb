# C types of transposition.py for the compiled build (see position.pxd).
cdef long long POOL_STEPS[84]

cpdef double to_tt(double score, int ply) noexcept
cpdef double from_tt(double score, int ply) noexcept
