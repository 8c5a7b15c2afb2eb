"""Reading a pydantic model from a JSON file, with errors that say what is wrong and where."""

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from .errors import InputError

_Model = TypeVar("_Model", bound=BaseModel)


def first_problem(error: ValidationError) -> str:
    """``where: message`` of the first problem of ``error`` (``where``: its dotted location,
    or ``(top level)``)."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return f"{where}: {first['msg']}"


def read_model_file(
    path: Path,
    model: type[_Model],
    error: type[InputError],
    what: str,
    *,
    valid: str = "valid",
    count_more: bool = False,
) -> _Model:
    """``model`` validated from the JSON file ``path``. ``error`` says ``cannot read <what>
    <path>: ...`` or ``<what> <path> is not <valid>: <first problem>`` (and how many more
    problems there are, with ``count_more``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as problem:
        raise error(f"cannot read {what} {path}: {problem}") from None
    try:
        return model.model_validate_json(text)
    except ValidationError as problem:
        more = problem.error_count() - 1 if count_more else 0
        raise error(
            f"{what} {path} is not {valid}: {first_problem(problem)}"
            + (f" (and {more} more problems)" if more else "")
        ) from None
