# C types of two_ply_count.py for the compiled build (Cython reads this beside the
# module; the .py stays plain Python). Keep the two in step: the same names.
import cython
from banqi_engine.cbits cimport low_square, popcount
from banqi_engine.movegen cimport (
    Children,
    count_leaves_with,
    face_down_types,
    make_child,
    moves_of,
)
from banqi_engine.movegen_tables cimport (
    RuleTables,
    adjacent,
    adjacent_pairs,
    cannon_jumps,
    cannon_reach,
    cannon_slide_count,
    cannon_slides,
    prey_into,
    rule_tables,
    threat_into,
)
from banqi_engine.position cimport BITS, Position

cdef unsigned long long _NEAR[32]
cdef unsigned long long _ONCE[512]
cdef unsigned long long _TWICE[512]
cdef int _FAR_PIECES_CHECK

@cython.locals(window="unsigned long long")
cdef inline int _neighbour_index(int square, unsigned long long squares) noexcept

cpdef long long count_two_ply_leaves(Position pos, rules) except? -1

cpdef long long two_ply_leaves(Position pos, RuleTables tables) except? -1

@cython.locals(kids=Children, i=int, total="long long")
cdef long long _children_leaves(Position pos, RuleTables tables) except? -1

@cython.locals(side=int, bb="unsigned long long *", foe_prey="unsigned long long[7]",
               threats="unsigned long long[7]", total="long long", mover=int, foe=int,
               foe_moves=int)
cdef long long _two_plies(Position pos, RuleTables tables) noexcept

@cython.locals(total=int, square=int)
cdef int _jump_pairs(unsigned long long sources, unsigned long long targets,
                     unsigned long long occupied) noexcept

@cython.locals(jump=bint, pool="int *", hidden="unsigned long long", empty="unsigned long long",
               total="long long", kinds=int, single=int, walks=int, jumped=int, piece=int,
               kind=int, rest="unsigned long long", count="long long", types=int)
cdef long long _flip_children(Position pos, RuleTables tables, int mover, int foe_moves,
                              unsigned long long *foe_prey, unsigned long long *threats,
                              int first, int last) noexcept

@cython.locals(jump=bint, slide=bint, board="int *", empty="unsigned long long",
               side=int, own=int, own_bb="unsigned long long", foe_bb="unsigned long long",
               own_cannons="unsigned long long", foe_cannons="unsigned long long",
               squares="int[32]", befores="int[32]", reaches="unsigned long long[32]",
               prey="unsigned long long[7]", cannons=int, lines="unsigned long long",
               walkers="unsigned long long", rest="unsigned long long", square=int,
               reach="unsigned long long", before=int, moves="long long", change="long long",
               pieces="unsigned long long", zone="unsigned long long", far="unsigned long long",
               enemy=int, frm_bit="unsigned long long", frm=int, kind=int,
               chasers="unsigned long long", around="unsigned long long", here=int,
               hits="unsigned long long", steps="unsigned long long", slider=bint, count=int,
               there="unsigned long long", index=int, once="unsigned long long",
               twice="unsigned long long", to_bit="unsigned long long", to=int,
               gone="unsigned long long")
cdef long long _step_children(Position pos, RuleTables tables, int foe_moves,
                              unsigned long long *foe_prey, unsigned long long *threats) noexcept

@cython.locals(change="long long", frm_bit="unsigned long long", steps="unsigned long long")
cdef long long _far_change(unsigned long long far, int *squares, int *befores,
                           unsigned long long *reaches, int cannons, unsigned long long lines,
                           unsigned long long empty, unsigned long long own_bb,
                           RuleTables tables) noexcept

@cython.locals(jump=bint, slide=bint, change="long long", left="unsigned long long",
               targets="unsigned long long", i=int, square=int, moved="unsigned long long",
               to_bit="unsigned long long")
cdef long long _cannons_quiet_change(int *squares, int *befores, unsigned long long *reaches,
                                     int cannons, unsigned long long frm_bit,
                                     unsigned long long steps, unsigned long long empty,
                                     unsigned long long own_bb, RuleTables tables) noexcept

@cython.locals(to_bit="unsigned long long", change="long long", i=int, square=int,
               left="unsigned long long")
cdef long long _cannons_capture_change(int *squares, int *befores, unsigned long long *reaches,
                                       int cannons, unsigned long long frm_bit, int to,
                                       unsigned long long empty, unsigned long long own_bb,
                                       RuleTables tables) noexcept
