"""Rule sets as data: a validated model, the presets, and loading from files.

A rule set says how pieces rank for captures, how the cannon captures and moves,
whether a piece may move onto a face-down piece, and the two draw limits.
Everything else (a piece captures an adjacent enemy of equal or lower order, the
King never takes a Pawn, a Pawn may take the King, nothing takes a face-down piece
by an ordinary capture) is common to all rule sets.

Moving onto a face-down piece (``move_onto_face_down``, the Hong Kong forum rule):
a face-up piece steps onto an orthogonally adjacent face-down piece, which is
turned up. If it is an enemy the mover takes by a step (``takes_revealed``), it is
captured and the mover takes its square; otherwise the mover stays and the revealed
piece stays face up where it is. Either way the turn ends and, as after a flip, the
no-progress count starts again. A piece that takes nothing by a step (a jumping
cannon) may not do it: the move could only ever turn the piece up, which a flip of
that square does. Colours are still decided by the first flip, as no piece is face up
before it.
"""

import tomllib
from functools import cache
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from banqi_common.bounded_json import JsonShapeError, Shape, bounded_json, check_shape

from .errors import RulesError
from .pieces import CANNON, KIND_LETTERS, KING, NUM_KINDS, PAWN, Piece

MAX_NO_PROGRESS_LIMIT: Final = 10_000
"""The longest no-progress limit a rule set may have, in plies."""


class RuleSet(BaseModel):
    """One rule set: the fields of the rules table, validated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(default="custom", min_length=1, description="Name shown in records.")
    capture_order: str = Field(
        default="KGMRNCP",
        description="The seven kind letters K G M R N C P from highest to lowest.",
    )
    cannon_capture: Literal["jump", "step"] = Field(
        default="jump",
        description="'jump': over exactly one screen, any order; 'step': one step by order.",
    )
    cannon_move: Literal["step", "slide"] = Field(
        default="step", description="'step': one square; 'slide': any number of empty squares."
    )
    move_onto_face_down: bool = Field(
        default=False,
        description="A face-up piece may step onto an adjacent face-down piece, turning it up "
        "and taking it if it may (the Hong Kong forum rule).",
    )
    no_progress_limit: int = Field(
        default=180,
        ge=1,
        le=MAX_NO_PROGRESS_LIMIT,
        description="Plies without flip or capture that draw.",
    )
    repetition_count: int = Field(
        default=3, ge=2, le=100, description="Occurrences of one position that draw."
    )

    @field_validator("capture_order")
    @classmethod
    def _check_order(cls, value: str) -> str:
        value = value.upper().replace(" ", "")
        if sorted(value) != sorted(KIND_LETTERS):
            raise ValueError(
                f"must list each of the letters {' '.join(KIND_LETTERS)} exactly once, "
                f"from highest to lowest (got {value!r})"
            )
        return value


PRESETS: dict[str, RuleSet] = {
    "olympiad": RuleSet(name="olympiad"),
    "hong-kong": RuleSet(
        name="hong-kong", capture_order="KRNCGMP", cannon_capture="step", no_progress_limit=80
    ),
    "taiwan-sliding-cannon": RuleSet(
        name="taiwan-sliding-cannon", cannon_move="slide", no_progress_limit=80
    ),
    "casual": RuleSet(name="casual", no_progress_limit=20),
    "hong-kong-forum": RuleSet(
        name="hong-kong-forum",
        capture_order="KRNCGMP",
        cannon_capture="step",
        move_onto_face_down=True,
        no_progress_limit=100,
    ),
}
DEFAULT_RULES = "olympiad"


@cache
def step_capture_masks(rules: RuleSet) -> tuple[int, ...]:
    """For each attacker kind, a mask (bit per kind) of the kinds it takes by a step."""
    rank = {KIND_LETTERS.index(letter): i for i, letter in enumerate(rules.capture_order)}
    masks = []
    for attacker in range(NUM_KINDS):
        mask = 0
        if not (attacker == CANNON and rules.cannon_capture == "jump"):
            for target in range(NUM_KINDS):
                if rank[attacker] <= rank[target] and not (attacker == KING and target == PAWN):
                    mask |= 1 << target
            if attacker == PAWN:
                mask |= 1 << KING
        masks.append(mask)
    return tuple(masks)


def takes_revealed(rules: RuleSet, mover: Piece, revealed: Piece) -> bool:
    """Whether ``mover``, having moved onto a face-down square that showed ``revealed``,
    captures it (an enemy it takes by a step) rather than staying where it was."""
    return reveal_captures(rules)[mover][revealed]


@cache
def reveal_captures(rules: RuleSet) -> tuple[tuple[bool, ...], ...]:
    """``takes_revealed`` as a table: by mover piece code, by revealed piece code."""
    masks = step_capture_masks(rules)
    return tuple(
        tuple(
            mover // NUM_KINDS != revealed // NUM_KINDS
            and bool(masks[mover % NUM_KINDS] >> (revealed % NUM_KINDS) & 1)
            for revealed in range(2 * NUM_KINDS)
        )
        for mover in range(2 * NUM_KINDS)
    )


def _describe(error: ValidationError, source: str) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown field; allowed fields: " + ", ".join(RuleSet.model_fields)
        parts.append(f"{where}: {message}")
    return f"bad rule set in {source}: " + "; ".join(parts)


def rules_from_data(data: object, source: str = "data") -> RuleSet:
    """Validate a mapping as a rule set; ``preset = NAME`` starts from a preset."""
    if not isinstance(data, dict):
        raise RulesError(f"bad rule set in {source}: expected a table of fields")
    fields = dict(data)
    base = fields.pop("preset", None)
    if base is not None:
        fields = {**preset(str(base)).model_dump(), "name": f"custom-{base}", **fields}
    try:
        return RuleSet.model_validate(fields)
    except ValidationError as error:
        raise RulesError(_describe(error, source)) from None


RULES_FILE_SUFFIXES: Final = (".toml", ".json")
"""The kinds of rule-set file read: TOML, or JSON."""


def _allowed() -> str:
    return f"allowed: {', '.join(PRESETS)}, or a path to a .toml or .json rule-set file"


def preset(name: str) -> RuleSet:
    """The preset of that name; RulesError lists the allowed names otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown rule set {name!r}; {_allowed()}") from None


def rules_file_problem(path: Path) -> str | None:
    """What makes ``path`` no rule-set file: missing, not a regular file (a folder, a
    device), or not named ``.toml`` or ``.json``; None when it is one."""
    if not path.exists():
        return f"rule-set file {path} does not exist; {_allowed()}"
    if not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        return f"rule-set file {path} is {kind}; {_allowed()}"
    if path.suffix.lower() not in RULES_FILE_SUFFIXES:
        named = f"a {path.suffix} file" if path.suffix else "a file with no .toml or .json suffix"
        return f"rule-set file {path} is {named}; {_allowed()}"
    return None


def load_rules_file(path: Path) -> RuleSet:
    """Read a rule set from a TOML or JSON file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RulesError(f"cannot read rule-set file {path}: {error}") from None
    return rules_from_text(text, path.suffix.lower() == ".json", f"rule-set file {path}")


RULES_SHAPE: Final = Shape(depth=4, values=200, string=1000)
"""What a rule-set file may hold: a flat table (a nested one at most), short strings."""


def rules_from_text(text: str, is_json: bool, source: str) -> RuleSet:
    """A rule set from the text of a JSON or TOML rule-set file (``source`` names it in
    errors); its shape is bounded before it is parsed. RulesError says what is wrong."""
    try:
        check_shape(text, RULES_SHAPE, source)
        data: object = bounded_json(text, RULES_SHAPE, source) if is_json else tomllib.loads(text)
    except JsonShapeError as error:
        raise RulesError(str(error)) from None
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{source} does not parse: {error}") from None
    return rules_from_data(data, source)


def resolve_rules(spec: str) -> RuleSet:
    """A preset name, or the path of a ``.toml``/``.json`` rule-set file."""
    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if path.suffix.lower() in RULES_FILE_SUFFIXES or path.exists():
        problem = rules_file_problem(path)
        if problem:
            raise RulesError(problem)
        return load_rules_file(path)
    return preset(spec)
