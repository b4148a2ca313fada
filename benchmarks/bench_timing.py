"""Interleaved timing, paired ratios, and peak memory, for any library's process."""

from __future__ import annotations

import ctypes
import gc
import random
import statistics
import time
from typing import Callable

import torch


def synchronizer(device: str) -> Callable[[], None]:
    return torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)


def interleaved(scenarios: dict[str, Callable], rounds: int, repeats: int, warmup: int, device: str,
                seed: int = 0, log=None) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds per call of each scenario, one value per round: wall-clock and the process's CPU time.

    Every round runs every scenario, in a fresh random order, so slow spells of a shared machine hit
    all of them alike; each round keeps the fastest of its calls (interference only adds time).
    With one torch thread the process's CPU time is the work itself, and waiting for a busy core does
    not count in it."""
    sync = synchronizer(device)
    for name, fn in scenarios.items():
        for _ in range(warmup):
            fn()
        sync()
    wall: dict[str, list[float]] = {name: [] for name in scenarios}
    cpu: dict[str, list[float]] = {name: [] for name in scenarios}
    order = list(scenarios)
    shuffle = random.Random(seed)
    for round_index in range(rounds):
        shuffle.shuffle(order)
        gc.collect()
        for name in order:
            fn = scenarios[name]
            walls, cpus = [], []
            for _ in range(repeats):
                sync()
                start, start_cpu = time.perf_counter(), time.process_time()
                kept = fn()
                sync()
                walls.append(time.perf_counter() - start)
                cpus.append(time.process_time() - start_cpu)
                del kept
            wall[name].append(min(walls))
            cpu[name].append(min(cpus))
        if log:
            log(f"  round {round_index + 1}/{rounds}")
    return wall, cpu


def summary(values: list[float]) -> dict:
    """Median and interquartile range."""
    if len(values) == 1:
        return {"median": values[0], "q1": values[0], "q3": values[0], "n": 1}
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return {"median": median, "q1": q1, "q3": q3, "n": len(values)}


def paired_ratio(numerator: list[float], denominator: list[float]) -> dict:
    """The ratio round by round (both measured in the same round), summarised."""
    return summary([a / b for a, b in zip(numerator, denominator)])


# --------------------------------------------------------------------------- memory
def _malloc_trim() -> None:
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def peak_memory(fn: Callable, device: str) -> int:
    """Bytes the call's peak stands above what was held before it (the loaded models).

    CUDA: the allocator's own peak. CPU: the peak resident set (VmHWM, reset through
    /proc/self/clear_refs) above the resident set before the call; the worker runs with a fixed
    mmap threshold, so large tensors are returned to the system when freed."""
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        kept = fn()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        del kept
        return peak
    _malloc_trim()
    base = _status_kib("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    kept = fn()
    peak = _status_kib("VmHWM") - base
    del kept
    return peak * 1024
