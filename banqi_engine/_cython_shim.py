"""The names of Cython's ``cython`` module that the core uses, for pure runs without Cython.

Cython is needed to build, not to run: every core module imports ``cython`` as

    try:
        import cython
    except ModuleNotFoundError:
        from . import _cython_shim as cython  # type: ignore[no-redef]

Compiled, Cython reads those names itself; run as Python with Cython installed, the real
``cython`` module (Cython's ``Shadow``) answers; without it, this one does, the same way:
the decorators return what they decorate, a C type converts its argument to its Python
type (``cython.int(2.5) == 2``, no overflow), ``cython.int[32]`` is an array type whose
value is a list, and ``declare(t, value)`` is ``cast(t, value)``.
"""

import builtins
from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar

compiled: Final = False
"""False: the module runs as Python (the compiled module sees True)."""

_T = TypeVar("_T")


def _same(thing: _T) -> _T:
    return thing


cclass = cfunc = ccall = inline = final = _same
"""Decorators that only the compiler acts on."""


def locals(**types: object) -> Callable[[_T], _T]:
    """``@cython.locals(i=cython.int)``: the locals' C types, for the compiler only."""
    return _same


def exceptval(value: object = None, *, check: bool = True) -> Callable[[_T], _T]:
    """``@cython.exceptval(-1, check=False)``: a ``cfunc``'s error value, for the compiler only."""
    return _same


class CType:
    """A C scalar type: calling it converts a value to its Python type (one already of
    that type is kept as it is, as Cython's own module does); ``t[n]`` is an array of n."""

    def __init__(self, name: str, python_type: type | None) -> None:
        self.name = name
        self.python_type = python_type

    def __call__(self, value: Any = 0) -> Any:
        if self.python_type is None or isinstance(value, self.python_type):
            return None if self.python_type is None else value
        return self.python_type(value)

    def __getitem__(self, length: builtins.int) -> "ArrayType":
        return ArrayType(self, length)

    def __repr__(self) -> str:
        return self.name


class ArrayType:
    """A C array type: its value is a list of ``length`` items, each None until set (a C
    array is not initialised either)."""

    def __init__(self, item: CType, length: builtins.int) -> None:
        self.item = item
        self.length = length

    def __call__(self, values: Iterable[Any] | None = None) -> list[Any]:
        if values is None:
            return [None] * self.length
        return [self.item(value) for value in values]

    def __repr__(self) -> str:
        return f"{self.item.name}[{self.length}]"


int = CType("int", builtins.int)
uint = CType("unsigned int", builtins.int)
char = CType("char", builtins.int)
schar = CType("signed char", builtins.int)
uchar = CType("unsigned char", builtins.int)
short = CType("short", builtins.int)
ushort = CType("unsigned short", builtins.int)
long = CType("long", builtins.int)
ulong = CType("unsigned long", builtins.int)
longlong = CType("long long", builtins.int)
ulonglong = CType("unsigned long long", builtins.int)
Py_ssize_t = CType("Py_ssize_t", builtins.int)
size_t = CType("size_t", builtins.int)
float = CType("float", builtins.float)
double = CType("double", builtins.float)
bint = CType("bint", builtins.bool)
void = CType("void", None)


def cast(type_: object, value: Any) -> Any:
    """``value`` as ``type_``: converted for a C type, unchanged for any other."""
    return type_(value) if isinstance(type_, CType | ArrayType) else value


_UNSET: Final = object()


def declare(type_: object = None, value: Any = _UNSET, **types: object) -> Any:
    """``cython.declare(t, value)``: ``value`` cast to ``t``; with no value, an array's
    unset items, or None for other types and for keyword declarations."""
    if value is not _UNSET:
        return cast(type_, value)
    return type_() if isinstance(type_, ArrayType) else None
