# C types of movegen_tables.py for the compiled build (Cython reads this beside the
# module; the .py stays plain Python). Keep the two in step: the same names.
import cython
from banqi_engine.cbits cimport low_square, popcount

cdef unsigned long long _ALL
cdef unsigned long long _NOT_FILE_A
cdef unsigned long long _NOT_FILE_D
cdef unsigned long long _NEAR[32]
cdef unsigned long long _CROSS[32]
cdef unsigned long long _RANK_JUMPS[512]
cdef unsigned long long _RANK_SLIDES[512]
cdef int _RANK_COUNTS[512]
cdef unsigned long long _RANK_REACH[512]
cdef unsigned long long _FILE_JUMPS[8192]
cdef unsigned long long _FILE_SLIDES[8192]
cdef int _FILE_COUNTS[8192]
cdef unsigned long long _FILE_REACH[8192]


@cython.final
cdef class RuleTables:
    cdef readonly int rising[7]
    cdef readonly int falling[7]
    cdef readonly int cannon_and_below[7]
    cdef readonly int n_cannon_and_below
    cdef readonly bint jump
    cdef readonly bint slide
    cdef readonly bint onto_hidden
    cdef readonly bint reveal_takes[196]


cpdef RuleTables rule_tables(rules)

@cython.locals(k=int, union="unsigned long long")
cdef inline void _running_unions(unsigned long long *bb, int base, int *order,
                                 unsigned long long *out) noexcept

cdef void prey_into(unsigned long long *bb, int enemy, RuleTables tables,
                    unsigned long long *out) noexcept

@cython.locals(cannons="unsigned long long", i=int)
cdef void threat_into(unsigned long long *bb, int own, RuleTables tables,
                      unsigned long long *out) noexcept

@cython.locals(buf="unsigned long long[14]", masks="unsigned long long[7]", i=int)
cpdef list prey_masks(bb, int enemy, RuleTables tables)

@cython.locals(buf="unsigned long long[14]", masks="unsigned long long[7]", i=int)
cpdef list threat_masks(bb, int own, RuleTables tables)

cdef inline int _rank_index(int square, unsigned long long occupied) noexcept

@cython.locals(column="unsigned long long")
cdef inline int _file_index(int square, unsigned long long occupied) noexcept

cdef unsigned long long cannon_jumps(int square, unsigned long long occupied) noexcept
cdef unsigned long long cannon_slides(int square, unsigned long long occupied) noexcept
cdef int cannon_slide_count(int square, unsigned long long occupied) noexcept
cdef unsigned long long cannon_reach(int square, unsigned long long occupied) noexcept

cpdef unsigned long long adjacent(unsigned long long squares) noexcept
cpdef int adjacent_pairs(unsigned long long pieces, unsigned long long targets) noexcept
