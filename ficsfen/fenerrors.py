"""The FEN codec's errors: each names the field at fault, a stable code and a lazy message.

:data:`ERROR_CODES` lists every code the codec raises with the field(s) it
concerns; :data:`FIELD_NAMES` the field names messages use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ficsfen.i18n import DEFAULT_LANGUAGE, LocalizedError, Message, msg

__all__ = [
    "ERROR_CODES",
    "FIELD_NAMES",
    "MAX_DIGITS",
    "FenError",
    "FenSyntaxError",
    "InvalidPositionError",
    "shown",
]

#: Field number -> its name; 0 stands for the record as a whole.
FIELD_NAMES: Mapping[int, Message] = {
    0: msg("record"),
    1: msg("placement"),
    2: msg("active colour"),
    3: msg("castling"),
    4: msg("en passant"),
    5: msg("halfmove clock"),
    6: msg("fullmove number"),
}

#: Every ``FenError.code`` the parser raises, with the field(s) it concerns.
ERROR_CODES: Mapping[str, tuple[int, ...]] = {
    "field-count": (0,),
    "blank-edge": (0,),
    "separator": (0,),
    "rank-count": (1,),
    "rank-length": (1,),
    "adjacent-digits": (1,),
    "bad-digit": (1,),
    "bad-piece": (1,),
    "king-count": (1,),
    "pawn-backrank": (1,),
    "pawn-count": (1,),
    "piece-count": (1,),
    "too-many-checkers": (1,),
    "impossible-check": (1,),
    "turn": (2,),
    "opposite-check": (2,),
    "castling-char": (3,),
    "castling-repeat": (3,),
    "castling-order": (3,),
    "castling-rights": (3,),
    "ep-square": (4,),
    "ep-rank": (4,),
    "ep-turn": (4,),
    "ep-occupied": (4,),
    "ep-origin": (4,),
    "ep-pawn": (4,),
    "ep-check": (4,),
    "ep-halfmove": (4, 5),
    "halfmove-number": (5,),
    "fullmove-number": (6,),
    "fullmove-zero": (6,),
    "leading-zero": (5, 6),
    "number-too-long": (5, 6),
}

# Longer numbers than this are refused before int() (Python limits int(str)
# to 4300 digits and would raise a plain ValueError).
MAX_DIGITS = 1000
_SHOWN_LIMIT = 100


def shown(text: str) -> str:
    """The offending text as it is safe to print: escaped, and cut if long."""
    if len(text) > _SHOWN_LIMIT:
        text = text[:_SHOWN_LIMIT] + "\u2026"
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class FenError(LocalizedError, ValueError):
    """A FEN record broke a rule.

    ``field`` is the field number (1-6, or 0 for the record as a whole),
    ``code`` a stable identifier such as ``"castling-order"``, ``text`` the
    offending text, ``message`` the lazy detail and ``suggestion`` the
    corrected text of that field (or record) when the fix is obvious.
    """

    field_names: Mapping[int, Message] = FIELD_NAMES

    def __init__(
        self,
        field: int,
        code: str,
        text: str,
        message: Message,
        *,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(message, field, code, text)
        self.field = field
        self.code = code
        self.text = text
        self.suggestion = suggestion

    @property
    def field_name(self) -> Message:
        return self.field_names[self.field]

    def describe(self) -> Message:
        """The full error as a lazy message naming the field, to embed in others."""
        if self.field == 0:
            return msg("{name}: {detail}", name=self.field_name, detail=self.message)
        return msg(
            "field {number} ({name}): {detail}",
            number=self.field,
            name=self.field_name,
            detail=self.message,
        )

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        """The full error for one reader, e.g. ``field 3 (castling): ...``."""
        return self.describe().render(lang)

    def __repr__(self) -> str:
        extra = f", suggestion={self.suggestion!r}" if self.suggestion is not None else ""
        return (
            f"{type(self).__name__}({self.field!r}, {self.code!r}, {self.text!r}, "
            f"{self.message!r}{extra})"
        )

    def __reduce__(self) -> tuple[Callable[..., FenError], tuple[object, ...]]:
        # keep the keyword-only suggestion when pickled
        return (_rebuild_error, (type(self), self.field, self.code, self.text,
                                 self.message, self.suggestion))


def _rebuild_error(cls: type[FenError], field: int, code: str, text: str, message: Message,
                   suggestion: str | None) -> FenError:
    return cls(field, code, text, message, suggestion=suggestion)


class FenSyntaxError(FenError):
    """The record is not well-formed FEN text."""


class InvalidPositionError(FenError):
    """The record is well-formed but describes an impossible position."""
