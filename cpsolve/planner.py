"""How a run goes on the cores or the cluster it has: the one place that decides.

Engines say what they can with a compiled search (`Prepared.capabilities`: it splits into parts,
it hands work back, it can begin here and hand the rest over, it races a search for one solution,
its default workers); the options say what the user asked (`--workers`, `--cluster`,
`--checkpoint`, `--first`); this turns both, with the machine's cores, into a Plan, which
cpsolve.parts carries out.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from cpsolve.engines.base import Capabilities
from cpsolve.options import RunOptions


class How(StrEnum):
    WHOLE = "whole"  # the whole search in this process
    PARTS = "parts"  # disjoint parts on the executor (forked processes, a cluster, a checkpoint's units)
    BEGIN_HERE = "begin here"  # begun in this process, the rest in parts once it has searched a while
    RACE = "race"  # a search for one solution raced on every process


class Plan(NamedTuple):
    how: How
    workers: int  # processes (or a cluster's workers) asked for
    units: bool = False  # the parts are units of their own (a cluster's tasks, a checkpoint's lines)
    threads: bool = False  # the parts on threads of this process (cpsolve.workers.Threaded), not forked ones


def plan(can: Capabilities, options: RunOptions, cores: int) -> Plan:
    """The plan for a run. A limited run (`--first`, `--max-solutions`) is never split into parts,
    whose solutions would come in an order that depends on the processes' speed; a search for one
    solution is raced where the engine races, on the processes `--workers` or the engine names.
    Parts where asked for (`--workers N`, `--cluster`, `--checkpoint`) or measured faster (the
    engine's default workers, or parts in one process); begun here where the engine can (its
    search has no estimate, or one too small for more workers to pay), also with `--workers N`:
    a search that ends soon never pays for the processes or threads asked for, a long one gets
    them once it proves long. Parts on this machine run on threads where the engine's search
    lets go of the GIL and hands no work back (the threads after the first begin only once the
    search has run a while: cpsolve.workers.Threaded), else on forked processes."""
    racers = options.workers or can.race_workers
    if options.search.first_only and can.races and not options.as_units and racers > 1:
        return Plan(How.RACE, racers)
    wanted = options.workers or (cores if options.as_units else can.default_workers)
    split = options.as_units or wanted > 1 or can.parts_in_one_process
    if not can.splits or options.limited or not split:
        return Plan(How.WHOLE, 1)
    threads = can.threads and options.cluster is None
    if not options.as_units and can.begins_here:
        return Plan(How.BEGIN_HERE, wanted, threads=threads)
    return Plan(How.PARTS, wanted, options.as_units, threads)
