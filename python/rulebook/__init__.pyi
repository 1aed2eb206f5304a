"""Typed stubs of the rulebook package (see __init__.py for the documentation)."""

import os
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

Outcome = Dict[str, Any]
VaryValues = Union[str, range, Sequence[Any]]

class RulebookError(Exception):
    diagnostics: Sequence[Dict[str, Any]]

class Roll:
    resolver: str
    inputs: Dict[str, Any]
    outcome: Outcome
    trace: List[Dict[str, Any]]
    json: Dict[str, Any]

class Odds:
    resolver: str
    inputs: Dict[str, Any]
    outcomes: List[Tuple[Outcome, Fraction]]
    json: Dict[str, Any]
    def probability(self, **fields: Any) -> Fraction: ...

class Best:
    resolver: str
    decide: str
    optimal: Fraction
    compared: List[Tuple[str, Fraction]]
    states: List[Dict[str, Any]]
    json: Dict[str, Any]
    def choice(self, **state: Any) -> List[Any]: ...

def best(
    resolver: str,
    inputs: Optional[Mapping[str, Any]] = ...,
    *,
    until: str,
    maximize: str,
    decide: Optional[str] = ...,
    rounds: int = ...,
    against: Optional[Mapping[str, Any]] = ...,
    **more: Any,
) -> Best: ...
def systems() -> List[Dict[str, Any]]: ...
def resolvers(what: str) -> Dict[str, Any]: ...
def roll(
    resolver: str,
    inputs: Optional[Mapping[str, Any]] = ...,
    *,
    seed: int = ...,
    dice: Optional[Sequence[int]] = ...,
    **more: Any,
) -> Roll: ...
def odds(
    resolver: str, inputs: Optional[Mapping[str, Any]] = ..., *, max_branches: Optional[int] = ..., **more: Any
) -> Odds: ...
def sim(
    resolver: str, inputs: Optional[Mapping[str, Any]] = ..., *, runs: int = ..., seed: int = ..., **more: Any
) -> Dict[str, Any]: ...
def sweep_json(
    resolver: str,
    vary: Mapping[str, VaryValues],
    set: Optional[Mapping[str, Any]] = ...,
    field: Union[None, str, Sequence[str]] = ...,
    shard: Optional[Tuple[int, int]] = ...,
    threads: int = ...,
    budget: int = ...,
) -> str: ...
def sweep(
    resolver: str,
    vary: Mapping[str, VaryValues],
    set: Optional[Mapping[str, Any]] = ...,
    field: Union[None, str, Sequence[str]] = ...,
    shard: Optional[Tuple[int, int]] = ...,
    threads: int = ...,
    budget: int = ...,
    as_frame: Optional[bool] = ...,
) -> Any: ...
def sweep_rows(doc: Union[str, Mapping[str, Any]], fields: Optional[Sequence[str]] = ...) -> List[Dict[str, Any]]: ...
def merge(docs: Iterable[Union[str, Mapping[str, Any]]]) -> str: ...
def check(path: Union[str, os.PathLike[str]]) -> Dict[str, Any]: ...
def builtin_rules() -> Dict[str, str]: ...

class Rules:
    path: str
    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> Rules: ...
    def systems(self) -> List[Dict[str, Any]]: ...
    def resolvers(self, what: str) -> Dict[str, Any]: ...
    def roll(
        self,
        resolver: str,
        inputs: Optional[Mapping[str, Any]] = ...,
        *,
        seed: int = ...,
        dice: Optional[Sequence[int]] = ...,
        **more: Any,
    ) -> Roll: ...
    def odds(
        self, resolver: str, inputs: Optional[Mapping[str, Any]] = ..., *, max_branches: Optional[int] = ..., **more: Any
    ) -> Odds: ...
    def sim(
        self, resolver: str, inputs: Optional[Mapping[str, Any]] = ..., *, runs: int = ..., seed: int = ..., **more: Any
    ) -> Dict[str, Any]: ...
    def sweep_json(
        self,
        resolver: str,
        vary: Mapping[str, VaryValues],
        set: Optional[Mapping[str, Any]] = ...,
        field: Union[None, str, Sequence[str]] = ...,
        shard: Optional[Tuple[int, int]] = ...,
        threads: int = ...,
        budget: int = ...,
    ) -> str: ...
    def sweep(
        self,
        resolver: str,
        vary: Mapping[str, VaryValues],
        set: Optional[Mapping[str, Any]] = ...,
        field: Union[None, str, Sequence[str]] = ...,
        shard: Optional[Tuple[int, int]] = ...,
        threads: int = ...,
        budget: int = ...,
        as_frame: Optional[bool] = ...,
    ) -> Any: ...
    def best(
        self,
        resolver: str,
        inputs: Optional[Mapping[str, Any]] = ...,
        *,
        until: str,
        maximize: str,
        decide: Optional[str] = ...,
        rounds: int = ...,
        against: Optional[Mapping[str, Any]] = ...,
        **more: Any,
    ) -> Best: ...
