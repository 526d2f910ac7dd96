"""A small, safe evaluator of numeric expressions written in diagram files.

``"pi/2"``, ``"[0, pi/4, -pi/2]"``, ``"30*deg"``, ``"2*Kp"``, ``"sqrt(2)/2"`` are evaluated here.
The text is parsed with :func:`ast.parse` (``mode="eval"``) and the tree is walked by this module,
which knows a short whitelist of node types; nothing is ever compiled, ``eval``'d, ``exec``'d or
imported. The language:

* numbers (``1``, ``2.5``, ``1e-3``), ``True``/``False``/``None``;
* ``+ - * / **`` and unary ``+ -`` on numbers (never on lists), parentheses;
* lists ``[a, b, ...]`` (nested for matrices) of any of these;
* the names :data:`CONSTANTS` (``pi``, ``e``, ``tau``, ``deg`` = pi/180, ``inf``, ``nan``,
  ``true``, ``false``, ``null``) and the names the caller provides (a diagram file's shared
  parameters, clocks and models: a bare name evaluates to the named object, but only numbers
  take part in arithmetic);
* calls of the functions :data:`FUNCTIONS` (``sqrt``, ``exp``, ``log``, ``sin``, ``atan2``, ...)
  with positional arguments.

Anything else (attribute access, subscripts, strings, lambdas, comprehensions, keyword
arguments, comparisons, ...) is an :class:`ExpressionError` naming the construct. Limits bound
the work: :data:`MAX_LENGTH` characters, :data:`MAX_NESTING` levels of brackets,
:data:`MAX_ELEMENTS` list elements in all, integer powers up to :data:`MAX_INT_BITS` bits
(larger powers are computed in floating point, where an overflow is an error).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from blocksim.engine.errors import suggest

#: longest accepted expression [characters]
MAX_LENGTH = 10_000
#: deepest accepted nesting of brackets and parentheses
MAX_NESTING = 32
#: most list elements in one expression (all levels together)
MAX_ELEMENTS = 100_000
#: largest integer result [bits]; beyond it an operation is an error
MAX_INT_BITS = 63

#: names every expression knows
CONSTANTS: dict[str, Any] = {
    "pi": math.pi, "e": math.e, "tau": math.tau, "deg": math.pi / 180.0, "inf": math.inf,
    "nan": math.nan, "true": True, "false": False, "null": None,
}

#: constants a diagram's shared parameter may take the name of (``tau`` is the natural name
#: of a time constant): inside that diagram the name is the parameter
SHADOWABLE = frozenset({"tau", "e", "deg"})

#: functions every expression knows, with their number of arguments
FUNCTIONS: dict[str, tuple[Callable[..., float], int]] = {
    "sqrt": (math.sqrt, 1), "exp": (math.exp, 1), "log": (math.log, 1),
    "log10": (math.log10, 1), "sin": (math.sin, 1), "cos": (math.cos, 1),
    "tan": (math.tan, 1), "asin": (math.asin, 1), "acos": (math.acos, 1),
    "atan": (math.atan, 1), "atan2": (math.atan2, 2), "sinh": (math.sinh, 1),
    "cosh": (math.cosh, 1), "tanh": (math.tanh, 1), "hypot": (math.hypot, 2),
    "radians": (math.radians, 1), "degrees": (math.degrees, 1), "abs": (abs, 1),
}

_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}

_CONSTRUCTS = {
    ast.Attribute: "attribute access ('.')", ast.Subscript: "subscripts ('[...]' after a value)",
    ast.Lambda: "lambda", ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.GeneratorExp: "generator expressions",
    ast.Dict: "dicts", ast.Set: "sets", ast.Compare: "comparisons", ast.BoolOp: "and/or",
    ast.IfExp: "if-else", ast.Starred: "'*' unpacking", ast.NamedExpr: "':='",
    ast.JoinedStr: "f-strings", ast.Await: "await", ast.Yield: "yield",
}


class ExpressionError(ValueError):
    """An expression is malformed, uses something outside the whitelist, or exceeds a limit."""


Lookup = Callable[[str], Any]


def _nesting(text: str) -> int:
    depth = deepest = 0
    for c in text:
        if c in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in ")]}":
            depth -= 1
    return deepest


def evaluate(text: str, names: Lookup | None = None, known: tuple[str, ...] = ()) -> Any:
    """Evaluate the expression ``text``.

    Parameters
    ----------
    text : str
        The expression, e.g. ``"[0, pi/4, -pi/2]"``.
    names : callable, optional
        ``names(identifier)`` returns the value of a name that is not one of
        :data:`CONSTANTS`, or raises ``KeyError`` when it is unknown.
    known : tuple of str
        The names ``names`` knows, for did-you-mean suggestions.

    Returns
    -------
    int, float, bool, None, list or a named object
        Lists are nested Python lists; a bare name gives whatever ``names`` returns.

    Raises
    ------
    ExpressionError
        With a message naming what is wrong and where.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression of {len(text)} characters; the limit is "
                              f"{MAX_LENGTH} (write long tables as JSON arrays)")
    if _nesting(text) > MAX_NESTING:
        raise ExpressionError(f"expression nested deeper than {MAX_NESTING} levels of brackets")
    if not text.strip():
        raise ExpressionError("empty expression")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        col = f" at column {exc.offset}" if exc.offset else ""
        raise ExpressionError(f"{text!r} is not a valid expression{col}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"{text[:40]!r} cannot be parsed: {type(exc).__name__}") from None
    return _Evaluator(text, names, known).visit(tree.body)


class _Evaluator:
    def __init__(self, text: str, names: Lookup | None, known: tuple[str, ...]):
        self.text = text
        self.names = names
        self.known = known
        self.elements = 0

    def fail(self, node: ast.AST, message: str) -> ExpressionError:
        col = getattr(node, "col_offset", None)
        where = f" (column {col + 1})" if col is not None else ""
        return ExpressionError(f"in {self.text!r}{where}: {message}")

    def visit(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or v is None:
                return v
            if isinstance(v, int):
                if v.bit_length() > MAX_INT_BITS:
                    raise self.fail(node, f"integer literal larger than {MAX_INT_BITS} bits")
                return v
            if isinstance(v, float):
                if math.isinf(v):
                    raise self.fail(node, "number literal outside the float64 range (write "
                                          "inf for infinity)")
                return v
            kind = "strings" if isinstance(v, (str, bytes)) else f"{type(v).__name__} literals"
            raise self.fail(node, f"{kind} are not allowed in an expression; only numbers")
        if isinstance(node, ast.List):
            self.elements += len(node.elts)
            if self.elements > MAX_ELEMENTS:
                raise self.fail(node, f"more than {MAX_ELEMENTS} list elements")
            return [self.visit(e) for e in node.elts]
        if isinstance(node, ast.Tuple):
            raise self.fail(node, "tuples are not allowed; write a list in brackets [a, b]")
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.number(node.operand, "unary minus/plus")
            return -v if isinstance(node.op, ast.USub) else +v
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self.binary(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        what = _CONSTRUCTS.get(type(node)) or type(node).__name__
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            what = f"the operator {type(node.op).__name__}"
        raise self.fail(node, f"not allowed in an expression: {what} (allowed: numbers, "
                              f"+ - * / **, parentheses, lists, names and the functions "
                              f"{', '.join(FUNCTIONS)})")

    def name(self, node: ast.Name) -> Any:
        n = node.id
        if n in CONSTANTS and n not in SHADOWABLE:
            return CONSTANTS[n]
        if n in FUNCTIONS:
            raise self.fail(node, f"'{n}' is a function; call it, e.g. {n}(x)")
        if self.names is not None:
            try:
                return self.names(n)
            except KeyError:
                pass
        if n in CONSTANTS:  # a shadowable constant no shared parameter names
            return CONSTANTS[n]
        options = (*CONSTANTS, *self.known)
        raise self.fail(node, f"unknown name '{n}'{suggest(n, options)}; known names: "
                              f"{', '.join(options)}")

    def number(self, node: ast.AST, what: str) -> int | float:
        v = self.visit(node)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(node, f"{what} needs numbers, got {_kind(v)}")
        return v

    def binary(self, node: ast.BinOp) -> int | float:
        op = _BINARY[type(node.op)]
        a = self.number(node.left, f"'{op}'")
        b = self.number(node.right, f"'{op}'")
        try:
            if op == "+":
                r = a + b
            elif op == "-":
                r = a - b
            elif op == "*":
                r = a * b
            elif op == "/":
                r = a / b
            elif isinstance(a, int) and isinstance(b, int) and 0 <= b and \
                    abs(a).bit_length() * b <= MAX_INT_BITS:
                r = a**b
            else:
                r = float(a) ** float(b)
        except ZeroDivisionError:
            raise self.fail(node, "division by zero") from None
        except OverflowError:
            raise self.fail(node, f"'{op}' overflows the float64 range") from None
        if isinstance(r, complex):
            raise self.fail(node, "the result is complex (negative number to a fractional "
                                  "power)")
        if isinstance(r, float) and math.isinf(r) and math.isfinite(a) and math.isfinite(b):
            raise self.fail(node, f"'{op}' overflows the float64 range")
        if isinstance(r, int) and r.bit_length() > MAX_INT_BITS:
            raise self.fail(node, f"integer result larger than {MAX_INT_BITS} bits")
        return r

    def call(self, node: ast.Call) -> float:
        if not isinstance(node.func, ast.Name):
            raise self.fail(node, "only the named functions may be called: "
                                  f"{', '.join(FUNCTIONS)}")
        fname = node.func.id
        if fname not in FUNCTIONS:
            raise self.fail(node, f"unknown function '{fname}'{suggest(fname, FUNCTIONS)}; "
                                  f"functions: {', '.join(FUNCTIONS)}")
        if node.keywords:
            raise self.fail(node, f"{fname}() takes positional arguments only")
        func, nargs = FUNCTIONS[fname]
        if len(node.args) != nargs:
            raise self.fail(node, f"{fname}() takes {nargs} argument{'s' * (nargs > 1)}, got "
                                  f"{len(node.args)}")
        args = [self.number(a, f"{fname}()") for a in node.args]
        try:
            return func(*args)  # type: ignore[no-any-return]
        except (ValueError, OverflowError) as exc:
            raise self.fail(node, f"{fname}{tuple(args)}: {exc}") from None


def _kind(v: Any) -> str:
    if isinstance(v, list):
        return "a list"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    return f"a {type(v).__name__}"
