# C types of perft.py for the compiled build (Cython reads this beside the module;
# the .py stays plain Python). Keep the two in step: the same names.
import cython
from banqi_engine.movegen cimport Children, count_leaves_with, make_child
from banqi_engine.movegen_tables cimport RuleTables, rule_tables
from banqi_engine.position cimport Position
from banqi_engine.two_ply_count cimport two_ply_leaves

cdef int _KEY_SIZE

@cython.locals(tables=RuleTables, table=dict)
cpdef object perft(Position pos, rules, int depth)

@cython.locals(kids=Children, i=int, total="long long")
cdef object _sum_children(Position pos, RuleTables tables, int depth, int ply, bint flips,
                          dict table)

@cython.locals(key_bytes=bytearray, board="int *", pool="int *", i=int, key=bytes)
cdef object _below(Position pos, RuleTables tables, int depth, int ply, bint flips, dict table)

cdef object _expand(Position pos, RuleTables tables, int depth, int ply, bint flips, dict table)
