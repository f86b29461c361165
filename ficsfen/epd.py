"""EPD: the four position fields of FEN followed by operations.

An EPD record is ``placement turn castling ep`` and then zero or more
operations, each ``opcode operand...;`` (e.g. ``bm Nf3; id "WAC.001";``).
The position fields follow exactly the FEN rules of :mod:`ficsfen.fen`;
the ``hmvc`` and ``fmvn`` opcodes carry the two FEN counters.

Operands are kept as written (a string operand keeps its quotes), and
operations keep their order, unknown opcodes included, so that
``emit_epd(parse_epd(s)) == s`` for every valid record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ficsfen import fen
from ficsfen.fen import FenError, Position, _shown
from ficsfen.i18n import Message, msg, msgn

__all__ = [
    "EPD_ERROR_CODES",
    "EPD_FIELD_NAMES",
    "Epd",
    "EpdError",
    "emit_epd",
    "parse_epd",
]

#: Field number -> name in an EPD record: fields 1-4 as in FEN, 5 the operations.
EPD_FIELD_NAMES: Mapping[int, Message] = {
    **{i: fen.FIELD_NAMES[i] for i in range(5)},
    5: msg("operations"),
}

Operation = tuple[str, tuple[str, ...]]

MAX_OPCODE_LENGTH = 14  # the EPD standard's limit on an opcode's length


class EpdError(FenError):
    """An EPD record broke a rule; field 5 is the operations."""

    field_names = EPD_FIELD_NAMES


@dataclass(frozen=True, repr=False)
class Epd:
    """One EPD record: the four FEN position fields and the operations, in order."""

    placement: str
    turn: str
    castling: str
    ep: str
    operations: tuple[Operation, ...] = ()

    def epd(self) -> str:
        """The record, with single spaces and every operation ended by ``;``."""
        return emit_epd(self)

    __str__ = epd

    def __repr__(self) -> str:
        return f"parse_epd({self.epd()!r})"

    def operands(self, opcode: str) -> tuple[str, ...] | None:
        """The operands of ``opcode`` as written, or ``None`` when it is absent."""
        for code, operands in self.operations:
            if code == opcode:
                return operands
        return None

    @property
    def halfmove(self) -> int | None:
        """The ``hmvc`` operand (halfmove clock), if given."""
        value = self.operands("hmvc")
        return int(value[0]) if value else None

    @property
    def fullmove(self) -> int | None:
        """The ``fmvn`` operand (fullmove number), if given."""
        value = self.operands("fmvn")
        return int(value[0]) if value else None

    def to_fen(self) -> str:
        """The FEN record; the counters come from ``hmvc``/``fmvn``, else 0 and 1."""
        half = self.halfmove
        full = self.fullmove
        return (
            f"{self.placement} {self.turn} {self.castling} {self.ep} "
            f"{0 if half is None else half} {1 if full is None else full}"
        )

    def position(self) -> Position:
        """The position as a checked :class:`~ficsfen.fen.Position`."""
        return fen.parse(self.to_fen())

    @classmethod
    def from_position(
        cls, position: Position, operations: tuple[Operation, ...] = (), *, counters: bool = False
    ) -> Epd:
        """An EPD record of ``position``; ``counters=True`` adds ``hmvc`` and ``fmvn``."""
        ops = tuple(operations)
        if counters:
            ops += (("hmvc", (str(position.halfmove),)), ("fmvn", (str(position.fullmove),)))
        return cls(position.placement, position.turn, position.castling, position.ep, ops)


def emit_epd(epd: Epd) -> str:
    """The EPD text of ``epd``."""
    parts = [epd.placement, epd.turn, epd.castling, epd.ep]
    for opcode, operands in epd.operations:
        parts.append(" ".join((opcode, *operands)) + ";")
    return " ".join(parts)


def parse_epd(text: str, *, validate: bool = True) -> Epd:
    """Parse an EPD record strictly; ``validate=False`` skips the position checks.

    Raises :class:`EpdError` (a :class:`~ficsfen.fen.FenError`) for the first
    problem in field order.
    """
    parts = text.split(" ", 4)
    if len(parts) < 4 or "" in parts[:4]:
        _record_error(text)
    if text != text.strip() or (not text.isprintable() and any(c.isspace() for c in text)):
        _record_error(text)
    try:
        fen._parse(" ".join(parts[:4]) + " 0 1", validate)
    except FenError as err:
        raise EpdError(err.field, err.code, err.text, err.message,
                       suggestion=err.suggestion) from None
    ops_text = parts[4] if len(parts) == 5 else None
    operations = _parse_operations(ops_text) if ops_text is not None else ()
    for opcode, operands in operations:
        if opcode == "hmvc" or opcode == "fmvn":
            _counter(opcode, operands)
        if opcode == "hmvc" and validate and parts[3] != "-" and operands[0] != "0":
            try:  # the same rule as FEN's fields 4 and 5: the push reset the clock
                fen._ep_halfmove(parts[3], operands[0])
            except FenError as err:
                raise EpdError(err.field, err.code, err.text, err.message,
                               suggestion=err.suggestion) from None
    return Epd(parts[0], parts[1], parts[2], parts[3], operations)


def _record_error(text: str) -> None:
    words = text.split(" ")
    count = len([w for w in text.split() if w])
    if text != text.strip():
        suggestion = " ".join(text.split())
        raise EpdError(0, "blank-edge", text, msg(
            'found blanks before or after the record; write "{suggestion}"',
            suggestion=_shown(suggestion)), suggestion=suggestion)
    if "" in words[:4] or any(c.isspace() and c != " " for c in text):
        suggestion = " ".join(text.split())
        raise EpdError(0, "separator", text, msg(
            'fields must be separated by single spaces; write "{suggestion}"',
            suggestion=_shown(suggestion)), suggestion=suggestion)
    raise EpdError(0, "field-count", text, msgn(
        "found {count} field; an EPD record has 4 position fields, then its operations",
        "found {count} fields; an EPD record has 4 position fields, then its operations",
        count))


def _op_error(code: str, ops: str, detail: Message, suggestion: str | None = None) -> None:
    raise EpdError(5, code, ops, detail, suggestion=suggestion)


def _parse_operations(ops: str) -> tuple[Operation, ...]:
    """Split ``opcode operand...;`` operations, each separated by one space."""
    if not ops:
        _op_error("blank-edge", ops, msg("found a blank after the position fields; remove it"))
    result: list[Operation] = []
    seen: set[str] = set()
    i, n = 0, len(ops)
    while i < n:
        # The opcode: a letter, then letters, digits or underscores.
        j = i
        while j < n and ops[j] not in " ;":
            j += 1
        opcode = ops[i:j]
        if not opcode:
            _op_error("separator", ops, msg(
                'an operation is missing its opcode at "{text}"', text=_shown(ops[i:])))
        if not (opcode[0].isascii() and opcode[0].isalpha()
                and all(c.isascii() and (c.isalnum() or c == "_") for c in opcode)):
            _op_error("opcode", ops, msg(
                '"{text}" is not an opcode: it starts with a letter and holds only '
                'letters, digits and "_"', text=_shown(opcode)))
        if len(opcode) > MAX_OPCODE_LENGTH:
            _op_error("opcode", ops, msg(
                '"{text}" is longer than {limit} characters, the most an opcode may have',
                text=_shown(opcode), limit=MAX_OPCODE_LENGTH))
        if opcode in seen:
            _op_error("opcode-repeat", ops, msg(
                '"{text}" appears twice; an opcode may appear once per record', text=opcode))
        seen.add(opcode)
        operands: list[str] = []
        while True:
            if j >= n:
                _op_error("unterminated", ops, msg(
                    'the operation "{text}" does not end with ";"; write "{suggestion}"',
                    text=_shown(ops[i:]), suggestion=_shown(ops + ";")),
                    suggestion=ops + ";")
            if ops[j] == ";":
                j += 1
                break
            # ops[j] is the space before an operand.
            j += 1
            if j >= n or ops[j] in " ;":
                _op_error("separator", ops, msg(
                    'the operands of "{text}" must be separated by single spaces',
                    text=opcode))
            k = j
            if ops[j] == '"':
                k = j + 1
                while k < n and ops[k] != '"':
                    k += 2 if ops[k] == "\\" else 1
                if k >= n:
                    _op_error("unclosed-string", ops, msg(
                        'the string {text} has no closing quote', text=_shown(ops[j:])))
                k += 1
                if k < n and ops[k] not in " ;":
                    _op_error("separator", ops, msg(
                        'the string {text} must be followed by a space or ";"',
                        text=_shown(ops[j:k])))
            else:
                while k < n and ops[k] not in " ;":
                    k += 1
                if '"' in ops[j:k]:
                    _op_error("unclosed-string", ops, msg(
                        'the operand "{text}" has a stray quote', text=_shown(ops[j:k])))
            operands.append(ops[j:k])
            j = k
        result.append((opcode, tuple(operands)))
        if j < n:
            if ops[j] != " " or j + 1 >= n or ops[j + 1] == " ":
                _op_error("separator", ops, msg(
                    'operations must be separated by single spaces, with nothing after '
                    'the last ";"'))
            j += 1
        i = j
    return tuple(result)


def _counter(opcode: str, operands: tuple[str, ...]) -> None:
    """Check a ``hmvc``/``fmvn`` operand the way FEN checks fields 5 and 6."""
    least = 0 if opcode == "hmvc" else 1
    if len(operands) == 1:
        value = operands[0]
        if value.isascii() and value.isdigit() and len(value) <= fen.MAX_DIGITS \
                and (value == "0" or value[0] != "0") and int(value) >= least:
            return
    shown = _shown(" ".join(operands))
    if opcode == "hmvc":
        detail = msg('"hmvc" takes one whole number of 0 or more (the halfmove clock), '
                     'not "{text}"', text=shown)
    else:
        detail = msg('"fmvn" takes one whole number of 1 or more (the fullmove number), '
                     'not "{text}"', text=shown)
    raise EpdError(5, f"{opcode}-operand", " ".join(operands), detail)


#: The codes an :class:`EpdError` adds to :data:`ficsfen.fen.ERROR_CODES`
#: (whose codes for fields 1-4 apply to EPD unchanged), with their fields.
EPD_ERROR_CODES: Mapping[str, tuple[int, ...]] = {
    "field-count": (0,),
    "blank-edge": (0, 5),
    "separator": (0, 5),
    "opcode": (5,),
    "opcode-repeat": (5,),
    "unterminated": (5,),
    "unclosed-string": (5,),
    "hmvc-operand": (5,),
    "fmvn-operand": (5,),
}
