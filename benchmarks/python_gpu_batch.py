"""One DE generation of 40 LS89 coarse designs submitted as one batch from Python, against the same
generation run by the command line (benchmarks/campaigns/ls89-tc1-de-generation-40.ron),
alternated twice on one GPU; and a GPU solve through Python against the command line's.

    python3 benchmarks/python_gpu_batch.py OUT_DIR [TURBOPT]

from the repository root on a GPU machine, with the package built with the GPU backend
(MATURIN_PEP517_ARGS="--features cuda" pip install ./python) and TURBOPT the command line built
with it (default target/release/turbopt, `cargo build --release --features cuda`)."""
import json, subprocess, sys, time
import numpy as np
import turbopt

OUT = sys.argv[1]
TURBOPT = sys.argv[2] if len(sys.argv) > 2 else "target/release/turbopt"
CAMPAIGN = "benchmarks/campaigns/ls89-tc1-de-generation-40.ron"
print("turbopt", turbopt.__version__, "CUDA", turbopt.CUDA, flush=True)

def cli_generation(tag):
    out = f"/tmp/cli-{tag}"
    subprocess.run(["rm", "-rf", out])
    t = time.perf_counter()
    subprocess.run([TURBOPT, "optimize", CAMPAIGN, "--backend", "gpu", "--out", out, "--json"], check=True, capture_output=True)
    wall = time.perf_counter() - t
    records = sorted((json.loads(l) for l in open(f"{out}/evaluations.jsonl")), key=lambda r: r["index"])
    # The generation alone: from the baseline's end to the last design's.
    generation = max(r["elapsed_s"] for r in records) - records[0]["elapsed_s"]
    return records, generation, wall

records, gen_cli_1, wall1 = cli_generation("a")
ev = turbopt.Evaluator(CAMPAIGN, backend="gpu")
campaign_vars = ["exit_metal_angle_deg", "camber_3", "camber_4", "camber_5", "thickness_4", "thickness_5", "pressure_thickness_8", "pressure_thickness_10"]
free = [ev.space.names.index(v) for v in campaign_vars]
designs = []
for r in records[1:]:
    x = ev.space.baseline.copy(); x[free] = r["design"]; designs.append(x)
X = np.array(designs)
base = ev(ev.space.baseline)           # the baseline first, as the campaign does (warm starts)
def python_generation():
    e2 = turbopt.Evaluator(CAMPAIGN, backend="gpu"); e2(e2.space.baseline)
    t = time.perf_counter(); out = e2.evaluate_batch(X); return out, time.perf_counter() - t
out1, gen_py_1 = python_generation()
records2, gen_cli_2, wall2 = cli_generation("b")
out2, gen_py_2 = python_generation()
same = all(o.objectives.tolist() == r["objectives"] for o, r in zip(out1, records[1:]))
print(f"generation of 40 on the GPU: CLI {gen_cli_1:.2f} s, {gen_cli_2:.2f} s; Python batch {gen_py_1:.2f} s, {gen_py_2:.2f} s; "
      f"ratio Python/CLI {(gen_py_1 + gen_py_2) / (gen_cli_1 + gen_cli_2):.3f}; same objectives as the CLI: {same}", flush=True)
r = turbopt.solve("blades/ls89.ron", case="MUR47", density="coarse", backend="gpu")
cli = subprocess.run([TURBOPT, "solve", "blades/ls89.ron", "--case", "MUR47", "--density", "coarse", "--backend", "gpu", "--json", "--out", "/tmp/solve-cli"], capture_output=True, text=True)
c = json.loads(cli.stdout.strip().splitlines()[-1])
print(f"GPU solve: Python {r.entropy_rise!r} {r.iterations} iterations ({r.backend}); CLI {c['entropy_rise']!r} {c['iterations']}; identical: {r.entropy_rise == c['entropy_rise'] and r.iterations == c['iterations']}", flush=True)
json.dump({"cli_s": [gen_cli_1, gen_cli_2], "python_s": [gen_py_1, gen_py_2], "same": same}, open(f"{OUT}/batch.json", "w"))
