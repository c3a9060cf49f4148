"""Record: the little of @dataclass that spamnb's records use, and the only
way records are made here.

`dataclasses` imports `inspect` (and with it ast, dis and tokenize): about
20 ms of a fresh scoring process (BENCHMARKS.md, "Private CPython modules on
the cold path"), for classes that only need an __init__, equality and a
repr.  A subclass lists its fields in __slots__ (annotations
document their types), defaults in `_defaults`, default factories in
`_factories`, validation in `_check`, and sets `_frozen` for an immutable,
hashable value.
"""

from __future__ import annotations


class Record:
    __slots__: tuple[str, ...] = ()
    _defaults: dict = {}
    _factories: dict = {}
    _frozen = False

    def __init__(self, *args, **kwargs) -> None:
        # One pass over what was given and one over what was not: records are
        # made per message (a Score, a RawMessage), so this runs in the bulk path.
        fields = self.__slots__
        given = len(args)
        if given > len(fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(fields)} arguments")
        put = object.__setattr__
        for name, value in zip(fields, args):
            put(self, name, value)
        if kwargs:
            positional = fields[:given]
            for name, value in kwargs.items():
                if name not in fields or name in positional:
                    raise TypeError(f"{type(self).__name__}: unexpected or repeated argument {name!r}")
                put(self, name, value)
        if given + len(kwargs) < len(fields):
            for name in fields[given:]:
                if name in kwargs:
                    continue
                if name in self._factories:
                    put(self, name, self._factories[name]())
                elif name in self._defaults:
                    put(self, name, self._defaults[name])
                else:
                    raise TypeError(f"{type(self).__name__}: missing argument {name!r}")
        self._check()

    def _check(self) -> None:
        """Raise ValueError for values that do not make a valid record."""

    def __setattr__(self, name: str, value) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable")
        object.__setattr__(self, name, value)

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        if not self._frozen:
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        return hash(self._values())

    def __repr__(self) -> str:
        inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({inside})"

    def __reduce__(self):
        # Serialised by multiprocessing to and from our own worker processes; rebuilt through __init__,
        # so a frozen record never needs setattr.
        return (type(self), self._values())
