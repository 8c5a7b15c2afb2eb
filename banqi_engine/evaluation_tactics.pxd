# C types of evaluation_tactics.py for the compiled build (Cython reads this beside the
# module; the .py stays plain Python). The evaluation cimports threat_terms: a C function
# (pointer arguments), not callable from Python in this build.
import cython

from banqi_engine.cbits cimport low_square, popcount
from banqi_engine.movegen_tables cimport (
    RuleTables, adjacent, cannon_jumps, prey_into, threat_into
)
from banqi_engine.position cimport Position

cdef unsigned long long _NOT_FILE_A
cdef unsigned long long _NOT_FILE_D
cdef int _CANNON
cdef unsigned long long _ALL_SQUARES
cdef unsigned long long _NEIGHBOURS[32]
cdef double _NO_ATTACKER
cdef double _CONFINED[5]


@cython.locals(hits="unsigned long long", cannons="unsigned long long")
cdef unsigned long long cannon_hits(unsigned long long *bb, int colour,
                                    unsigned long long occupied) noexcept


@cython.locals(bb="unsigned long long *", colour_bb="unsigned long long *",
               board="int *", red="unsigned long long", black="unsigned long long",
               red_hits="unsigned long long", black_hits="unsigned long long",
               occupied="unsigned long long", near_red="unsigned long long",
               near_black="unsigned long long", side=int, ours=double, theirs=double,
               trapped=double, turn=int, defender=int, contact="unsigned long long",
               att_hits="unsigned long long", def_hits="unsigned long long", attacker=int,
               att_bb="unsigned long long", def_bb="unsigned long long", att_base=int,
               def_base=int, best=double, square=int, low="unsigned long long",
               near="unsigned long long", kind=int, value=double, cheapest=double,
               cheapest_kind=int, enemies="unsigned long long", other=int, gain=double,
               friends="unsigned long long", friend=int)
cdef (double, double, double) threat_terms(Position pos, RuleTables tables, int *step_prey,
                                           double *values) noexcept


@cython.locals(near="unsigned long long", enemy=int, masks="unsigned long long[7]")
cdef bint _trapped(Position pos, RuleTables tables, int square, int kind,
                   unsigned long long hits) noexcept


@cython.locals(bb="unsigned long long *", empty="unsigned long long",
               occupied="unsigned long long", masks="unsigned long long[7]", total=double,
               colour=int, enemy=int, hits="unsigned long long", own=int, penalty=double,
               kind=int, pieces="unsigned long long", safe="unsigned long long",
               value=double, square=int, escapes=int)
cdef double confinement(Position pos, RuleTables tables, double *values) noexcept
