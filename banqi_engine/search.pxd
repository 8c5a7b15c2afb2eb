# C types of search.py for the compiled build (see position.pxd).
import cython

from banqi_engine.cbits cimport popcount
from banqi_engine.evaluation cimport Evaluator
from banqi_engine.movegen cimport generate_into
from banqi_engine.movegen_tables cimport RuleTables, rule_tables
from banqi_engine.search_flips cimport FlipChoice
from banqi_engine.position cimport BITS, Position
from banqi_engine.transposition cimport (
    EXACT, LOWER, POOL_STEPS, UPPER, TranspositionTable, from_tt, to_tt
)

cdef double INFINITY, NULL_WINDOW, TABLE_PLY_COST, TABLE_DRAW_SHARE
cdef int TIME_CHECK_MASK, ASPIRATION_MIN_DEPTH, LMR_MIN_DEPTH, LMR_CHANCE_MIN_DEPTH, LMR_MIN_INDEX
cdef int LMR_LATE_INDEX, LMR_DEEP, NULL_MIN_DEPTH, NULL_REDUCTION, MAX_EXTENSIONS
cdef int EXTENSION_MAX_DEPTH, EXTENSION_SPACING, STAR2_MIN_DEPTH, TABLE_MAX_PLIES, NORMAL
cdef int AFTER_NULL, NO_MOVE, MVV_WEIGHT, KILLER_ORDER, MOVE_CODES, MAX_PLY
cdef long long SIDE_SWAP, NO_NODE_LIMIT


@cython.locals(slot=int)
cdef inline void _insert_sorted(int *out, double *keys, int first, int end, int move,
                                double key) noexcept


@cython.final
cdef class Searcher:
    cdef public object rules, params, config, base, tables, partial
    cdef public Evaluator evaluator
    cdef public RuleTables rule_tables
    cdef public FlipChoice flips
    cdef public TranspositionTable tt
    cdef long long[::1] rep_keys
    cdef int rep_base, rep_top
    cdef public Position pos
    cdef double values[7]
    cdef signed char takes[196]
    cdef int kinds_by_value[7]
    cdef public int limit, flip_min_depth
    cdef bint use_tt, want_threats, pvs, lmr, null_move, threat_extension, star2, flip_ordering
    cdef long long history[1024]
    cdef int killers[512]
    cdef public long long pool_key, nodes, max_nodes
    cdef public double deadline, contempt, aspiration_window
    cdef double draw_scores[2]

    cdef void _tick(self) except *

    @cython.locals(known=list)
    cpdef void reset_repetitions(self, keys) except *

    @cython.locals(index=int)
    cdef bint _repeats(self, long long key) noexcept

    cdef inline void _start_stretch(self, int top) noexcept

    @cython.locals(pos=Position, capture=bint, top=int, saved_base=int, score=double)
    cdef double _child_move(self, int move, int depth, double alpha, double beta, int ply,
                            int ext) except? -1e300

    @cython.locals(frm=int, pos=Position)
    cpdef void _make_outcome(self, int move, int piece) except *

    @cython.locals(pos=Position, pool="int *", total=int, child_depth=int, saved_base=int,
                   saved_top=int,
                   saved_key="long long", bound=double, uppers=list, probed=double, acc=double,
                   rest=double, rest_up=double, piece=int, count=int, p=double, low=double,
                   high=double, value=double, have_result=bint, result=double)
    cpdef double _chance(self, int move, int depth, double alpha, double beta, int ply,
                         int ext) except? -1e300

    @cython.locals(pos=Position, pool="int *", total=int, saved_key="long long", top=int,
                   bound=double,
                   uppers=list, acc=double, rest=double, piece=int, count=int, p=double,
                   target=double, upper=double)
    cdef tuple _star2_probe(self, int move, int child_depth, double alpha, int ply, int ext)

    @cython.locals(pos=Position, bound=double, probe=int, slot=int, captures="int[256]",
                   count=int, index=int, board="int *", best_key=double, key=double, move=int,
                   reply=double)
    cdef double _probe_outcome(self, int depth, double low, int ply, int ext) except? -1e300

    @cython.locals(pos=Position, exact=object, key="long long", tt_move=int, slot=int, flag=int, score=double,
                   moves="int[256]", order="int[256]", count=int, ordered=int, side=int,
                   pv_node=bint, with_flips=bint, threatened="unsigned long long",
                   top_threat=bint, alpha_start=double, best=double, best_move=int,
                   board="int *", killer0=int, killer1=int, pvs=bint, lmr=bint,
                   index=int, move=int, frm=int, to=int, reduced=bint, reduction=int)
    cpdef double _search(self, int depth, double alpha, double beta, int ply, int parent,
                         int ext) except? -1e300

    @cython.locals(pos=Position, captures="int[256]", count=int, index=int,
                   mask="unsigned long long")
    cdef unsigned long long _threatened(self) except? 0

    @cython.locals(bb="unsigned long long *", base=int, kind=int, pieces="unsigned long long")
    cdef unsigned long long _top_pieces(self, int side) noexcept

    @cython.locals(slot=int)
    cdef void _remember_cutoff(self, int move, int depth, int ply) noexcept

    @cython.locals(keys="double[256]", reveals="int[256]",
                   interacting="int[32]", quiet_squares="int[32]", quiet_count="int[1]",
                   board="int *", killer0=int, killer1=int, n=int, first=int, captures=int,
                   reveal_count=int, index=int, move=int, frm=int, to=int, target=int,
                   key=double, order_key=double, flips=int)
    cdef int _order_into(self, int *moves, int count, int tt_move, int ply, bint with_flips,
                         int *out) except -1

    @cython.locals(pos=Position, side=int, exact=object, best=double, captures="int[256]",
                   keys="double[256]", count=int, board="int *", index=int, move=int, key=double,
                   slot=int, score=double)
    cdef double _quiesce(self, double alpha, double beta, int ply) except? -1e300

    @cython.locals(pos=Position)
    cdef object _table_score(self)
