# C types of evaluation.py for the compiled build (Cython reads this beside the module;
# the .py stays plain Python). Evaluator.evaluate is a cpdef method: the search calls it
# at C speed, Python callers as before.
import cython

from banqi_engine.cbits cimport low_square, popcount
from banqi_engine.evaluation_tactics cimport confinement, threat_terms
from banqi_engine.movegen_tables cimport RuleTables, adjacent, rule_tables
from banqi_engine.position cimport Position

cdef unsigned long long _NOT_FILE_A
cdef unsigned long long _NOT_FILE_D
cdef unsigned long long _RING_MASKS[192]
cdef int _RING_BONUS[6]
cdef int _RING_EVEN[6]
cdef double _HUNT_NEAR[6]
cdef long long FILLED


cdef inline int _step_pairs(unsigned long long pieces, unsigned long long targets) noexcept


@cython.final
cdef class _Material:
    cdef readonly double score
    cdef readonly double values[14]


@cython.final
cdef class _Risks:
    cdef int n
    cdef int pieces[14]
    cdef double risks[14]


@cython.final
cdef class Evaluator:
    cdef public object params
    cdef double base[7]
    cdef public RuleTables tables
    cdef public bint jump
    cdef int predators[7]
    cdef int prey[7]
    cdef int step_prey[7]
    cdef public object step_predators
    cdef public object chasers
    cdef int _chase_pieces[14]
    cdef int _chase_targets[98]
    cdef int _n_targets[14]
    cdef int _n_chasers[2]
    cdef readonly dict _material
    cdef long long _score_mask
    cdef long long[::1] _score_keys
    cdef double[::1] _score_values
    cdef readonly dict _flip_risk
    cdef public double mobility_weight
    cdef public double chase_weight
    cdef public double chase_max_hidden
    cdef public double parity_weight
    cdef public double threat_stm_weight
    cdef public double threat_opp_weight
    cdef public double trapped_weight
    cdef public double confine_weight
    cdef public double hunt_weight
    cdef public bint threats_on
    cdef public double flip_risk_weight
    cdef public int limit
    cdef public double window
    cdef public int pressure_plies
    cdef public double pressure_step

    @cython.locals(pool="int *", key="long long", slot="long long", digits="long long",
                   piece=int, score=double, remaining=int)
    cpdef double evaluate(self, Position pos)

    @cython.locals(bb="unsigned long long *", pool="int *", entry=_Material, score=double,
                   empty="unsigned long long", colour_bb="unsigned long long *",
                   hidden="unsigned long long", side=int, ours=double, theirs=double,
                   trapped=double, piece=int, material="long long")
    cdef double _score(self, Position pos, long long pool_digits)

    @cython.locals(piece=int, risks=_Risks, near="unsigned long long", score=double, index=int,
                   pieces="unsigned long long")
    cdef double _flip_risk_term(self, unsigned long long *bb, unsigned long long hidden,
                                int *pool, long long pool_digits)

    @cython.locals(score=double, matched=int, colour=int, total=int, found=int, even=int,
                   first=int, index=int, pieces="unsigned long long",
                   targets="unsigned long long", first_target=int, target=int, rings=int,
                   steps=int, right=int)
    cdef double _chase(self, unsigned long long *bb, int side, bint parity) noexcept

    @cython.locals(score=double, total=double, colour=int, first=int, index=int,
                   pieces="unsigned long long", rings=int, first_target=int, target=int,
                   prey=int, targets="unsigned long long", near=double, steps=int, found=int)
    cdef double _hunt(self, unsigned long long *bb, double *values) noexcept
