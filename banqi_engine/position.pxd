# C types of position.py for the compiled build (Cython reads this beside the module;
# the .py stays plain Python). Keep the two in step: the same names, the same methods.
import cython

cdef unsigned long long BITS[32]
cdef long long _ZOBRIST_FLAT[512]
cdef long long _SIDE_KEYS[3]


@cython.final
cdef class Position:
    cdef public int board[32]
    cdef public int pool[14]
    cdef public unsigned long long bb[14]
    cdef public unsigned long long colour_bb[2]
    cdef public unsigned long long hidden
    cdef public unsigned long long empty
    cdef public long long hash
    cdef public int side
    cdef public int no_progress
    cdef public int ply
    cdef long long[::1] _undo
    cdef int _undo_count

    @cython.locals(n=int, grown=object, index=int)
    cdef inline void _push(self, int move, int undo_state) except *

    @cython.locals(bit="unsigned long long", side=int, new_side=int)
    cpdef void make_flip(self, int square, int piece)

    @cython.locals(frm=int, to=int, mover=int, frm_bit="unsigned long long",
                   to_bit="unsigned long long", h="long long", side=int)
    cpdef void make_reveal(self, int move, int piece, bint takes)

    @cython.locals(frm=int, to=int, piece=int, captured=int, frm_bit="unsigned long long",
                   to_bit="unsigned long long", colour=int, h="long long", side=int)
    cpdef void make_move(self, int move)

    @cython.locals(n=int, old_hash="long long", packed="long long", move=int, captured=int, frm=int,
                   to=int, piece=int, bit="unsigned long long", frm_bit="unsigned long long",
                   to_bit="unsigned long long")
    cpdef void unmake(self) noexcept

    @cython.locals(frm_bit="unsigned long long", to_bit="unsigned long long", piece=int, mover=int)
    cdef void _unmake_reveal(self, int frm, int to, int undo_state)
