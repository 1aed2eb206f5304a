"""rulebook for Python: tabletop combat rules resolved, explained and computed exactly.

Every function answers with the documents ``rulebook ... --json`` prints (the same JSON, turned
into Python values); probabilities are always :class:`fractions.Fraction`, never floats. Mistakes
raise :class:`RulebookError` with the message the command line prints after ``error: ``.

>>> import rulebook
>>> rulebook.odds("starleader.to_hit", weapon="Ghazi 10/7").probability(result="hit")
Fraction(145, 432)

The built-in rules come with the package; :meth:`Rules.load` reads rules from a folder
(``SYSTEM/NAME.rules`` files, as ``rulebook --rules DIR``) and runs them in the interpreter.
"""

from __future__ import annotations

import json as _json
import os
from dataclasses import dataclass, field as _field
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _rulebook as _native
from ._rulebook import RulebookError

__all__ = [
    "RulebookError",
    "Roll",
    "Odds",
    "Rules",
    "Best",
    "best",
    "systems",
    "resolvers",
    "roll",
    "odds",
    "sim",
    "sweep",
    "sweep_json",
    "sweep_rows",
    "merge",
    "check",
    "builtin_rules",
]

# Diagnostics of rules that do not load (`Rules.load`); none for other errors.
RulebookError.diagnostics = ()

Outcome = Dict[str, Any]
VaryValues = Union[str, range, Sequence[Any]]


@dataclass(frozen=True)
class Roll:
    """One resolution (``rulebook roll --json``): its outcome, inputs and trace."""

    resolver: str
    inputs: Dict[str, Any]
    outcome: Outcome
    trace: List[Dict[str, Any]]
    json: Dict[str, Any] = _field(repr=False)


@dataclass(frozen=True)
class Odds:
    """The exact odds of every outcome (``rulebook odds --json``)."""

    resolver: str
    inputs: Dict[str, Any]
    outcomes: List[Tuple[Outcome, Fraction]]
    json: Dict[str, Any] = _field(repr=False)

    def probability(self, **fields: Any) -> Fraction:
        """The exact probability that every field given has its value, summed over outcomes.

        ``odds.probability(result="hit")``; with no fields, 1.
        """
        for name in fields:
            if not any(name in o for o, _ in self.outcomes):
                known = sorted({k for o, _ in self.outcomes for k in o})
                raise RulebookError(f"the outcomes of {self.resolver} have no field `{name}`; they have: {', '.join(known)}")
        return sum(
            (p for o, p in self.outcomes if all(o.get(k) == v for k, v in fields.items())),
            Fraction(0),
        )


@dataclass(frozen=True)
class Best:
    """The best choice of a decision in each state (``rulebook best --json``): every value an
    exact Fraction (a probability, or an expected number)."""

    resolver: str
    decide: str
    optimal: Fraction
    compared: List[Tuple[str, Fraction]]
    states: List[Dict[str, Any]]
    json: Dict[str, Any] = _field(repr=False)

    def choice(self, **state: Any) -> List[Any]:
        """The best choices in the state whose fields have the values given (where it is first met):
        ``best.choice(total=19)``."""
        for s in self.states:
            if all(s["state"].get(k) == v for k, v in state.items()):
                return list(s["best"])
        raise RulebookError(f"no state of {self.resolver} has {state}")


def _fraction(text: str) -> Fraction:
    return Fraction(text)


def _inputs_json(inputs: Optional[Mapping[str, Any]], more: Mapping[str, Any]) -> str:
    given: Dict[str, Any] = dict(inputs or {})
    for name, value in more.items():
        if name in given:
            raise RulebookError(f"`{name}` is given twice; give each input once")
        given[name] = value
    return _json.dumps(given)


def _spec(name: str, values: VaryValues) -> str:
    """A varied input's values as the command line's spec: ``all``, ``LO..HI`` or ``A,B,C``."""
    if isinstance(values, str):
        return values
    if isinstance(values, range):
        if len(values) == 0:
            raise RulebookError(f"--vary {name}=: no values (an empty range)")
        if values.step == 1:
            return f"{values.start}..{values[-1]}"
        values = list(values)
    items = []
    for v in values:
        text = ("yes" if v else "no") if isinstance(v, bool) else str(v)
        if "," in text:
            raise RulebookError(f"--vary {name}: the value `{text}` holds a comma, which separates values")
        items.append(text)
    if not items:
        raise RulebookError(f"--vary {name}=: no values")
    return ",".join(items)


def _doc_text(doc: Union[str, Mapping[str, Any]]) -> str:
    return doc if isinstance(doc, str) else _json.dumps(doc)


def sweep_rows(doc: Union[str, Mapping[str, Any]], fields: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """The rows of a sweep document (``sweep_json``), as ``rulebook sweep`` writes its CSV.

    One row per outcome of each point: ``point``, each varied input (a whole number when every
    value of that input is one), each of ``fields`` (the sweep's ``field``) or else ``outcome``
    (the whole outcome), ``probability`` (a Fraction), ``simulated`` (the runs of the simulation
    that estimated a point out of reach of exact odds, else None) and ``error`` (None); a point
    without odds has one row with its ``error`` and None elsewhere.
    """
    d = _json.loads(doc) if isinstance(doc, str) else doc
    names: List[str] = list(d["vary"])
    numeric = {n: all(_is_int(p["inputs"][n]) for p in d["points"]) for n in names}
    kept = list(fields or [])
    rows: List[Dict[str, Any]] = []
    for p in d["points"]:
        lead: Dict[str, Any] = {"point": p["point"]}
        for n in names:
            v = p["inputs"][n]
            lead[n] = int(v) if numeric[n] else v
        if "error" in p:
            blank = {f: None for f in kept} if kept else {"outcome": None}
            rows.append({**lead, **blank, "probability": None, "simulated": None, "error": p["error"]})
            continue
        simulated = p.get("simulated", {}).get("runs")
        for o in p["outcomes"]:
            shown = {f: o["outcome"].get(f) for f in kept} if kept else {"outcome": o["outcome"]}
            rows.append({**lead, **shown, "probability": _fraction(o["probability"]), "simulated": simulated, "error": None})
    return rows


def _is_int(text: Any) -> bool:
    try:
        int(text)
        return True
    except (TypeError, ValueError):
        return False


def merge(docs: Iterable[Union[str, Mapping[str, Any]]]) -> str:
    """The JSON documents of a sweep's shards joined into what one run gives (``rulebook merge
    --json``): points sorted by number; shards of different sweeps are refused. Returns JSON text."""
    return _native.merge([_doc_text(d) for d in docs])


def _diagnostics(check_doc: str) -> List[Dict[str, Any]]:
    keep = ("code", "severity", "file", "line", "column", "message", "label", "help")
    return [{k: d.get(k) for k in keep} for d in _json.loads(check_doc)["diagnostics"]]


def check(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """``rulebook check --rules DIR --json`` of a folder: ok, errors, warnings, diagnostics (each
    with code, severity, file, line, column, message), plus ``rendered`` as ``rulebook check``
    shows them."""
    return _json.loads(_native.check_dir(os.fspath(path)))


def builtin_rules() -> Dict[str, str]:
    """The built-in rules text, ``{"starleader/fire.rules": "...", ...}`` (``rulebook export``)."""
    return _json.loads(_native.builtin_rules_text())


class _Api:
    """The functions over one set of rules: the built-in ones, or a loaded folder."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def systems(self) -> List[Dict[str, Any]]:
        """Every system: name, title, and the names of its resolvers, tables and options."""
        return _json.loads(self._backend.systems())["systems"]

    def resolvers(self, what: str) -> Dict[str, Any]:
        """A system's resolvers with their typed inputs (``rulebook list SYSTEM --json``), or one
        resolver's for ``SYSTEM.RESOLVER``."""
        return _json.loads(self._backend.resolvers(what))

    def roll(
        self,
        resolver: str,
        inputs: Optional[Mapping[str, Any]] = None,
        *,
        seed: int = 0,
        dice: Optional[Sequence[int]] = None,
        **more: Any,
    ) -> Roll:
        """One resolution with seeded dice (``rulebook roll --seed SEED --json``; seed 0 unless
        given), or with the faces given in order (``dice=[6, 6, 5]``, as ``--dice 6,6,5``).
        Inputs as keywords (``weapon="Ghazi 10/7"``) or a mapping."""
        text = _inputs_json(inputs, more)
        if dice is not None:
            faces = _json.dumps([int(f) for f in dice])
            doc = _json.loads(self._backend.roll_with_dice(resolver, text, faces))
        else:
            doc = _json.loads(self._backend.roll(resolver, text, int(seed)))
        return Roll(doc["resolver"], doc["inputs"], doc["outcome"], doc["trace"], doc)

    def odds(
        self,
        resolver: str,
        inputs: Optional[Mapping[str, Any]] = None,
        *,
        max_branches: Optional[int] = None,
        **more: Any,
    ) -> Odds:
        """The exact probability of every outcome (``rulebook odds --json``), as Fractions."""
        doc = _json.loads(self._backend.odds(resolver, _inputs_json(inputs, more), max_branches))
        outcomes = [(o["outcome"], _fraction(o["probability"])) for o in doc["outcomes"]]
        return Odds(doc["resolver"], doc["inputs"], outcomes, doc)

    def sim(
        self,
        resolver: str,
        inputs: Optional[Mapping[str, Any]] = None,
        *,
        runs: int = 10_000,
        seed: int = 0,
        **more: Any,
    ) -> Dict[str, Any]:
        """``runs`` seeded runs (``rulebook sim --runs RUNS --seed SEED --json``), the document as
        dicts: each outcome's share with its 95% interval (floats: these are estimates)."""
        return _json.loads(self._backend.sim(resolver, _inputs_json(inputs, more), int(runs), int(seed)))

    def sweep_json(
        self,
        resolver: str,
        vary: Mapping[str, VaryValues],
        set: Optional[Mapping[str, Any]] = None,
        field: Union[None, str, Sequence[str]] = None,
        shard: Optional[Tuple[int, int]] = None,
        threads: int = 0,
        budget: int = 60,
    ) -> str:
        """``rulebook sweep --json`` as JSON text: the exact odds at every point of the grid.

        ``vary`` maps each varied input (the first varies slowest) to ``"all"``, ``"LO..HI"``,
        ``"A,B,C"``, a ``range`` or a list; ``set`` fixes the other inputs; ``field`` keeps only
        those outputs (``--field``); ``shard=(i, n)`` computes one n-th of the grid (``--shard
        I/N``, for :func:`merge`); ``threads`` 0 is every core; a point past ``budget`` seconds
        gets an ``error`` instead of odds."""
        specs = [(name, _spec(name, values)) for name, values in vary.items()]
        fields = [field] if isinstance(field, str) else list(field or [])
        part = None if shard is None else (int(shard[0]), int(shard[1]))
        return self._backend.sweep_json(resolver, specs, _json.dumps(dict(set or {})), fields, part, int(threads), int(budget))

    def sweep(
        self,
        resolver: str,
        vary: Mapping[str, VaryValues],
        set: Optional[Mapping[str, Any]] = None,
        field: Union[None, str, Sequence[str]] = None,
        shard: Optional[Tuple[int, int]] = None,
        threads: int = 0,
        budget: int = 60,
        as_frame: Optional[bool] = None,
    ) -> Any:
        """The sweep of :meth:`sweep_json` as a table: a pandas DataFrame when pandas is installed
        (or ``as_frame=True``), else a list of dicts; the rows of :func:`sweep_rows`."""
        fields = [field] if isinstance(field, str) else list(field or [])
        rows = sweep_rows(self.sweep_json(resolver, vary, set, fields, shard, threads, budget), fields)
        if as_frame is False:
            return rows
        try:
            import pandas
        except ImportError:
            if as_frame:
                raise
            return rows
        return pandas.DataFrame(rows)


    def best(
        self,
        resolver: str,
        inputs: Optional[Mapping[str, Any]] = None,
        *,
        until: str,
        maximize: str,
        decide: Optional[str] = None,
        rounds: int = 100,
        against: Optional[Mapping[str, Any]] = None,
        **more: Any,
    ) -> Best:
        """The best choice of the step's decision (a ``choice`` input) in each state, exactly
        (``rulebook best --json``): ``until`` is the yes/no output that ends the procedure,
        ``maximize`` a yes/no or number output or ``FIELD OP VALUE``, ``decide`` the decision
        (``NAME`` or ``NAME=LO..HI``; default: the step's one choice), ``against`` fixed choices to
        compare (``{"stop_at": 4}``; a list of values for several)."""
        pairs: List[Tuple[str, str]] = []
        for name, values in (against or {}).items():
            for v in values if isinstance(values, (list, tuple)) else [values]:
                pairs.append((name, ("yes" if v else "no") if isinstance(v, bool) else str(v)))
        doc = _json.loads(
            self._backend.best(resolver, _inputs_json(inputs, more), until, maximize, decide, int(rounds), pairs)
        )
        compared = [(c["policy"], _fraction(c["value"])) for c in doc["compared"]]
        return Best(doc["resolver"], doc["decide"], _fraction(doc["optimal"]), compared, doc["states"], doc)


class Rules(_Api):
    """Rules read from a folder and run by the interpreter, with the same functions as the
    module (``systems``, ``resolvers``, ``roll``, ``odds``, ``sim``, ``sweep``, ``sweep_json``)."""

    def __init__(self, backend: Any, path: str) -> None:
        super().__init__(backend)
        self.path = path

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Rules":
        """Reads ``SYSTEM/NAME.rules`` files under ``path`` (as ``rulebook --rules DIR``; what
        ``rulebook export DIR`` writes). Rules with errors raise :class:`RulebookError` with the
        command line's message and ``.diagnostics``: a dict per diagnostic (code, severity, file,
        line, column, message, label, help)."""
        path = os.fspath(path)
        try:
            backend = _native.Rules.load_dir(path)
        except RulebookError as e:
            try:
                e.diagnostics = _diagnostics(_native.check_dir(path))
            except RulebookError:
                e.diagnostics = []
            raise
        return cls(backend, path)

    def __repr__(self) -> str:
        return f"Rules.load({self.path!r})"


_builtin = _Api(_native)
systems = _builtin.systems
resolvers = _builtin.resolvers
roll = _builtin.roll
odds = _builtin.odds
sim = _builtin.sim
sweep = _builtin.sweep
sweep_json = _builtin.sweep_json
best = _builtin.best
