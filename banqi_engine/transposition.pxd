# C types of transposition.py for the compiled build (see position.pxd).
import cython
cdef long long POOL_STEPS[84]
cdef int EXACT, LOWER, UPPER

cpdef double to_tt(double score, int ply) noexcept
cpdef double from_tt(double score, int ply) noexcept


@cython.final
cdef class TranspositionTable:
    cdef public long long mask
    cdef long long[::1] keys
    cdef long long[::1] packed
    cdef double[::1] scores

    cpdef int find(self, long long key) noexcept
    cpdef void store(self, long long key, int depth, int flag, double score, int move) noexcept
    cpdef int depth(self, int slot) noexcept
    cpdef int flag(self, int slot) noexcept
    cpdef int move(self, int slot) noexcept
    cpdef double score(self, int slot) noexcept
