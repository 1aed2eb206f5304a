"""A rulebook sweep on a Dask cluster: the grid cut into shards (`rulebook.sweep_json(...,
shard=(i, n))`), one task each, run by the cluster's workers, merged with `rulebook.merge` into
exactly what one run on one machine gives, and printed as JSON or CSV.

    python examples/dask/sweep.py starleader.to_hit --vary weapon=all --vary range_hexes=1..14 \\
        --set target_size=1 --field result --shards 8 > to_hit.csv

Without --scheduler it starts a local cluster (two worker processes, one thread each); with
--scheduler tcp://HOST:8786 the same code runs on that cluster, whose workers must have the
`rulebook` package installed.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import rulebook


def shard(resolver: str, vary: Dict[str, str], fixed: Dict[str, object], fields: List[str], i: int, n: int) -> str:
    """One task: shard i of n, on one thread (the cluster's workers are the parallelism)."""
    import rulebook  # on the worker

    return rulebook.sweep_json(resolver, vary, set=fixed, field=fields, shard=(i, n), threads=1)


def run(
    client,
    resolver: str,
    vary: Dict[str, str],
    fixed: Optional[Dict[str, object]] = None,
    fields: Sequence[str] = (),
    shards: int = 8,
) -> str:
    """The sweep's JSON document (`rulebook sweep --json`), its shards computed on `client`'s
    cluster. Mistakes in names or values raise `rulebook.RulebookError` before any task runs."""
    fixed = dict(fixed or {})
    fields = list(fields)
    # Checked here first (one point's worth of work at most): a mistake is told once, not per task.
    doc = json.loads(rulebook.sweep_json(resolver, vary, set=fixed, field=fields, shard=(1, 1_000_000), threads=1))
    n = max(1, min(shards, doc["grid_points"]))
    futures = [client.submit(shard, resolver, vary, fixed, fields, i, n, pure=False) for i in range(1, n + 1)]
    return rulebook.merge(client.gather(futures))


def write_csv(doc: str, fields: Sequence[str], out) -> None:
    """The rows of the document as CSV: point, the varied inputs, the fields (or the outcome as
    JSON), the probability as an exact fraction, the error."""
    rows = rulebook.sweep_rows(doc, fields)
    if not rows:
        return
    w = csv.writer(out, lineterminator="\n")
    w.writerow(list(rows[0].keys()))
    for r in rows:
        w.writerow(["" if v is None else json.dumps(v) if isinstance(v, dict) else str(v) for v in r.values()])


def _pair(text: str) -> Tuple[str, str]:
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got `{text}`")
    return name.strip(), value


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("resolver", metavar="SYSTEM.RESOLVER")
    p.add_argument("--vary", type=_pair, action="append", required=True, metavar="NAME=VALUES", help="LO..HI, A,B,C or all")
    p.add_argument("--set", type=_pair, action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--field", action="append", default=[], metavar="FIELD")
    p.add_argument("--shards", type=int, default=8, help="tasks to cut the grid into (default 8)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (default: a local cluster)")
    p.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster (default 2)")
    p.add_argument("--json", action="store_true", help="the JSON of `rulebook sweep --json` instead of CSV")
    args = p.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    fields = [f for spec in args.field for f in spec.split(",") if f]
    # Values as text, bound as the command line binds `--set NAME=VALUE`.
    fixed: Dict[str, object] = dict(args.set)
    try:
        if args.scheduler:
            with Client(args.scheduler) as client:
                doc = run(client, args.resolver, dict(args.vary), fixed, fields, args.shards)
        else:
            with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster, Client(cluster) as client:
                doc = run(client, args.resolver, dict(args.vary), fixed, fields, args.shards)
    except rulebook.RulebookError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(doc)
    else:
        write_csv(doc, fields, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
