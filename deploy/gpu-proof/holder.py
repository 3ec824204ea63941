"""The GPU proof's CUDA program (run.sh starts it when torch is installed).

holder.py MIB SECONDS READYFILE: holds MIB MiB of GPU memory, writes a line
to READYFILE once it does, then keeps the GPU busy with matrix products for
SECONDS seconds (or until stopped).
"""

import sys
import time

import torch


def main() -> None:
    mib, seconds, ready = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    held = torch.ones(mib * 1024 * 1024, dtype=torch.uint8, device="cuda")
    a = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    with open(ready, "w", encoding="utf-8") as f:
        f.write(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}\n")
    end = time.time() + seconds
    while time.time() < end:
        for _ in range(20):
            a = torch.tanh(a @ a)
        torch.cuda.synchronize()
    del held


if __name__ == "__main__":
    main()
