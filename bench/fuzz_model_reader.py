"""Why stored suggestion models are sealed (``db.model_seal``): how many fuzzed CRFsuite model files kill the
process that opens them, and how many get past the seal.

Trains a small real model, makes N damaged copies (random bytes changed, every other one also cut short),
opens each in a child process with CRFsuite as the server once did, and counts the children killed by a
signal; then counts how many of the same copies, stored in a database, the seal would let CRFsuite open.

    python -m bench.fuzz_model_reader [--files 40] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

TOKENS = ["लेकिन", "स्टाफ़", "बहुत", "बुरा", "था", "।"]
OPEN = ("import sys; from corpus.baseline import load_model, suggest_spans; "
        f"suggest_spans(load_model(sys.stdin.buffer.read()), [{TOKENS!r}])")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz_model_reader", description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from corpus.baseline import LabelledSequence, train_model_file
    from db import model_seal
    from db.engine import make_engine

    sequences = [LabelledSequence(f"r/{i}", "restaurant", "train", tuple(TOKENS), ("O", "B", "O", "O", "O", "O"))
                 for i in range(6)]
    sequences += [LabelledSequence(f"x/{i}", "restaurant", "train", ("खाना", "अच्छा", "था"), ("B", "O", "O"))
                  for i in range(6)]
    model = train_model_file(sequences).data
    rng = random.Random(args.seed)
    killed = opened_past_seal = 0
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'fuzz.db'}")
        sealed = model_seal.seal(engine, 1, model)
        for i in range(args.files):
            damaged = bytearray(model)
            for _ in range(8):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            if i % 2:
                damaged = damaged[: rng.randrange(len(damaged))]
            run = subprocess.run([sys.executable, "-c", OPEN], input=bytes(damaged), capture_output=True, timeout=60)
            killed += run.returncode < 0
            stored = sealed[: len(model_seal.MAGIC) + model_seal.MAC_BYTES] + bytes(damaged)
            opened_past_seal += model_seal.unseal(engine, 1, stored) is not None
    print(f"fuzzed model files: {args.files}")
    print(f"killed the process that opened them unsealed: {killed}")
    print(f"opened past the seal (db.model_seal): {opened_past_seal}")


if __name__ == "__main__":
    main()
