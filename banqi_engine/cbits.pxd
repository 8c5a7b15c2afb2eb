# The C versions of bits.py for the compiled build: gcc's builtins, inlined.
cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil


cdef inline int low_square(unsigned long long squares) noexcept nogil:
    return __builtin_ctzll(squares)


cdef inline int popcount(unsigned long long squares) noexcept nogil:
    return __builtin_popcountll(squares)
