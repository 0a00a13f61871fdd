"""What calling turbopt from Python costs per evaluation, beside the same work in Rust.

    python3 benchmarks/python_overhead.py     (after `pip install ./python`)

- a Python objective minimized by L-SHADE (each evaluation: Rust -> Python -> Rust) against the
  same function in Rust (turbopt.Evaluator({"Analytic": ...}), no Python per evaluation);
- `Evaluator.__call__` from Python on an analytic evaluator (each call releases the interpreter
  on a worker thread that watches for Ctrl-C) against the same evaluations batched in one call.
Median of 5 runs; the difference per evaluation is the overhead.
"""

import math
import statistics
import time

import numpy as np

import turbopt

N = 100_000


def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def median_seconds(f, repeats=5):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    rust = turbopt.Evaluator({"Analytic": {"Rosenbrock": {"dim": 4}}})
    bounds = rust.space.bounds
    t_python = median_seconds(lambda: turbopt.minimize(rosenbrock, bounds, budget=N, seed=1))
    t_rust = median_seconds(lambda: turbopt.minimize(rust, budget=N, seed=1))
    designs = np.random.default_rng(1).uniform(rust.space.lower, rust.space.upper, size=(10_000, 4))
    t_calls = median_seconds(lambda: [rust(x) for x in designs])
    t_batch = median_seconds(lambda: rust.evaluate_batch(designs))
    t_numpy = median_seconds(lambda: [rosenbrock(x) for x in designs])
    print(f"turbopt {turbopt.__version__}; {N} evaluations of Rosenbrock-4D by L-SHADE, 10,000 designs called one by one")
    print("| what | per evaluation |")
    print("|---|---|")
    print(f"| L-SHADE, Python objective | {1e6 * t_python / N:.1f} us |")
    print(f"| L-SHADE, the same function in Rust | {1e6 * t_rust / N:.1f} us |")
    print(f"| overhead of a Python objective (of which numpy's own Rosenbrock {1e6 * t_numpy / len(designs):.1f} us) | {1e6 * (t_python - t_rust) / N:.1f} us |")
    print(f"| Evaluator(x) from Python, one design a call | {1e6 * t_calls / len(designs):.1f} us |")
    print(f"| Evaluator.evaluate_batch, 10,000 designs in one call | {1e6 * t_batch / len(designs):.2f} us |")
    print(f"| overhead of one call from Python | {1e6 * (t_calls - t_batch) / len(designs):.1f} us |")
    assert math.isfinite(t_python)


if __name__ == "__main__":
    main()
