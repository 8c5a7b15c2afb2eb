# C types of search_flips.py for the compiled build (Cython reads this beside the module;
# the .py stays plain Python). The search cimports FlipChoice: split, ranked, gain_table
# and trim are cpdef (Python-callable as before); split_into and rank_into are its C-level
# variants on int buffers of squares:
#   n = flips.split_into(pos, interacting, quiet, n_quiet): fills interacting[0..n) and
#       quiet[0..n_quiet[0]) (each int[32], rising squares), returns n;
#   kept = flips.rank_into(pos, pool_key, squares, n): orders squares[0..n) best first in
#       place (as ranked does), returns how many to keep (min(n, max_flips)).
import cython

from banqi_engine.cbits cimport low_square
from banqi_engine.movegen_tables cimport cannon_jumps
from banqi_engine.position cimport Position

cdef unsigned long long _NEIGHBOURS[32]
cdef unsigned long long _ALL_SQUARES


@cython.final
cdef class _Gains:
    cdef double gains[14]


@cython.final
cdef class FlipChoice:
    cdef public bint jump
    cdef int steps[7]
    cdef double values[7]
    cdef public int max_flips
    cdef public dict tables

    cpdef void trim(self)

    @cython.locals(interacting="int[32]", quiet="int[32]", n_quiet="int[1]", n=int, i=int)
    cpdef tuple split(self, Position pos)

    @cython.locals(face_up="unsigned long long", occupied="unsigned long long", jump=bint,
                   hidden="unsigned long long", n=int, q=int, square=int)
    cdef int split_into(self, Position pos, int *interacting, int *quiet, int *n_quiet) noexcept

    @cython.locals(n=int, buffer="int[32]", i=int, kept=int)
    cpdef list ranked(self, Position pos, long long pool_key, list squares)

    @cython.locals(table=_Gains, board="int *", face_up="unsigned long long",
                   gains="double[32]", i=int, square=int, gain=double,
                   near="unsigned long long", j=int)
    cdef int rank_into(self, Position pos, long long pool_key, int *squares, int n)

    @cython.locals(table=_Gains, piece=int)
    cpdef list gain_table(self, Position pos, long long pool_key)

    @cython.locals(key="long long", table=_Gains)
    cdef _Gains _gains(self, Position pos, long long pool_key)


cdef bint _jump_contact(int square, unsigned long long occupied, unsigned long long face_up) noexcept
