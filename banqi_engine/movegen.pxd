# C types of movegen.py for the compiled build (Cython reads this beside the module;
# the .py stays plain Python). Keep the two in step: the same names.
import cython
from banqi_engine.cbits cimport low_square, popcount
from banqi_engine.movegen_tables cimport (
    RuleTables,
    adjacent,
    adjacent_pairs,
    cannon_jumps,
    cannon_slide_count,
    cannon_slides,
    prey_into,
    rule_tables,
)
from banqi_engine.position cimport Position

cdef int _QUIET_START
cdef unsigned long long _NEAR[32]


@cython.locals(n=int, q=int, i=int, side=int, kind=int, square=int, base=int,
               jump=bint, slide=bint, special=bint, empty="unsigned long long",
               enemy_bb="unsigned long long", bb="unsigned long long *",
               prey="unsigned long long[7]", pieces="unsigned long long",
               capturable="unsigned long long", near="unsigned long long",
               hits="unsigned long long", steps="unsigned long long",
               hidden="unsigned long long", movers="unsigned long long",
               targets="unsigned long long")
cdef int generate_into(Position pos, RuleTables tables, bint quiet_too, int *out) noexcept

@cython.locals(out="int[256]", n=int, i=int)
cdef list _generate(Position pos, RuleTables tables, bint quiet_too)

cpdef list generate_moves(Position pos, rules)
cpdef list generate_captures(Position pos, rules)
cpdef unsigned long long jump_targets(int square, occupied) except? 0

@cython.locals(pool="int *", types=int, piece=int)
cpdef int face_down_types(Position pos) noexcept

@cython.locals(movers="unsigned long long")
cpdef int reveal_count(Position pos, int colour, RuleTables tables) noexcept

@cython.locals(bb="unsigned long long *", board="int *", empty="unsigned long long",
               own=int, mine="unsigned long long", walkers="unsigned long long", total=int,
               cannons="unsigned long long", theirs="unsigned long long", square=int,
               contact="unsigned long long")
cdef int moves_of(Position pos, int colour, unsigned long long *prey, RuleTables tables) noexcept

@cython.locals(types=int, total=int, side=int, prey="unsigned long long[7]")
cpdef int count_leaves_with(Position pos, RuleTables tables) noexcept

cpdef int count_leaves(Position pos, rules) except? -1

@cython.locals(moves="int[256]", n=int, i=int, move=int, piece=int, board="int *",
               pool="int *", count=int)
cdef int child_plies_into(Position pos, RuleTables tables, int *moves_out,
                          int *pieces_out) noexcept

@cython.final
cdef class Children:
    cdef int n
    cdef int moves[3584]
    cdef int pieces[3584]

@cython.locals(frm=int, to=int)
cdef void make_child(Position pos, RuleTables tables, int move, int piece)

@cython.locals(frm=int, to=int)
cpdef void make_ply(Position pos, rules, int move, piece)

cpdef bint has_legal_move(Position pos, rules) except? -1
