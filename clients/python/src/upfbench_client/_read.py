"""Typed reading of a JSON answer: each helper takes an object and a key and returns the value
with the type the schema gives it, or raises `MalformedAnswer` naming the field's path.
Unknown keys are ignored (docs/scale.md §4: fields may be added to v1 answers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .errors import MalformedAnswer

T = TypeVar("T")

JsonObject = dict[str, Any]


def obj(value: Any, path: str) -> JsonObject:
    """`value` as a JSON object."""
    if not isinstance(value, dict):
        raise MalformedAnswer(path, f"expected an object, found {_kind(value)}")
    return value


def _get(o: JsonObject, key: str, path: str) -> Any:
    if key not in o:
        raise MalformedAnswer(_at(path, key), "missing")
    return o[key]


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _as_int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedAnswer(path, f"expected an integer, found {_kind(value)}")
    return int(value)


def _as_float(value: Any, path: str) -> float:
    # JSON has one number type: an integer-valued float may come as 1 or 1.0.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedAnswer(path, f"expected a number, found {_kind(value)}")
    return float(value)


def _as_str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise MalformedAnswer(path, f"expected a string, found {_kind(value)}")
    return value


def _as_bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise MalformedAnswer(path, f"expected a boolean, found {_kind(value)}")
    return value


def int_(o: JsonObject, key: str, path: str) -> int:
    """A required integer."""
    return _as_int(_get(o, key, path), _at(path, key))


def float_(o: JsonObject, key: str, path: str) -> float:
    """A required number."""
    return _as_float(_get(o, key, path), _at(path, key))


def str_(o: JsonObject, key: str, path: str) -> str:
    """A required string."""
    return _as_str(_get(o, key, path), _at(path, key))


def bool_(o: JsonObject, key: str, path: str) -> bool:
    """A required boolean."""
    return _as_bool(_get(o, key, path), _at(path, key))


def opt_int(o: JsonObject, key: str, path: str) -> int | None:
    """An integer that may be null or absent."""
    value = o.get(key)
    return None if value is None else _as_int(value, _at(path, key))


def opt_float(o: JsonObject, key: str, path: str) -> float | None:
    """A number that may be null or absent."""
    value = o.get(key)
    return None if value is None else _as_float(value, _at(path, key))


def opt_str(o: JsonObject, key: str, path: str) -> str | None:
    """A string that may be null or absent."""
    value = o.get(key)
    return None if value is None else _as_str(value, _at(path, key))


def choice(o: JsonObject, key: str, path: str, allowed: tuple[str, ...]) -> str:
    """A required string that is one of `allowed` (a schema's `oneOf` of consts)."""
    value = str_(o, key, path)
    if value not in allowed:
        raise MalformedAnswer(_at(path, key), f"{value!r} is not one of {', '.join(allowed)}")
    return value


def obj_(o: JsonObject, key: str, path: str, parse: Callable[[JsonObject, str], T]) -> T:
    """A required nested object, read by `parse(object, its path)`."""
    where = _at(path, key)
    return parse(obj(_get(o, key, path), where), where)


def opt_obj(
    o: JsonObject, key: str, path: str, parse: Callable[[JsonObject, str], T]
) -> T | None:
    """A nested object that may be null or absent."""
    value = o.get(key)
    if value is None:
        return None
    where = _at(path, key)
    return parse(obj(value, where), where)


def _list(o: JsonObject, key: str, path: str, required: bool) -> list[Any]:
    value = _get(o, key, path) if required else o.get(key, [])
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise MalformedAnswer(_at(path, key), f"expected an array, found {_kind(value)}")
    return value


def list_(
    o: JsonObject,
    key: str,
    path: str,
    parse: Callable[[JsonObject, str], T],
    required: bool = True,
) -> list[T]:
    """An array of objects (absent is empty unless `required`)."""
    where = _at(path, key)
    return [
        parse(obj(v, f"{where}[{i}]"), f"{where}[{i}]")
        for i, v in enumerate(_list(o, key, path, required))
    ]


def ints(o: JsonObject, key: str, path: str, required: bool = True) -> list[int]:
    """An array of integers."""
    where = _at(path, key)
    return [_as_int(v, f"{where}[{i}]") for i, v in enumerate(_list(o, key, path, required))]


def strs(o: JsonObject, key: str, path: str, required: bool = True) -> list[str]:
    """An array of strings."""
    where = _at(path, key)
    return [_as_str(v, f"{where}[{i}]") for i, v in enumerate(_list(o, key, path, required))]


def str_map(o: JsonObject, key: str, path: str) -> dict[str, str]:
    """An object of strings (absent is empty)."""
    where = _at(path, key)
    value = obj(o.get(key, {}), where)
    return {k: _as_str(v, f"{where}.{k}") for k, v in value.items()}
