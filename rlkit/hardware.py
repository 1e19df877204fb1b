"""Hardware and software report, the CPU thread settings rlkit applies to the frameworks, and device choice.

Threads matter more than anything else on a small CPU: measured on a 2-core machine, torch with its default
of one intra-op thread per core slows down more than ten-fold as soon as another process uses a core (the
threads wait for each other). Small reinforcement-learning networks gain nothing from intra-op parallelism,
so rlkit sets torch and TensorFlow to one thread on CPU unless told otherwise: pass ``threads=`` or set
``RLKIT_THREADS``. The same goes for numpy's BLAS (OpenBLAS in numpy's wheels), which acting and the
buffers use: :func:`configure_numpy`, applied whenever a framework is configured.

Devices: learners of both frameworks take ``device=`` ("cpu", the default; "cuda", "cuda:N", "mps" or
"auto"): torch's through :func:`resolve_device`, TensorFlow's through :func:`tensorflow_device` and
:func:`on_learner_device`, which run the learner inside ``tf.device``: left to itself, a TensorFlow GPU build
puts every op on the GPU, whatever the learner was asked for. :func:`configure_tensorflow` turns on memory
growth, so TensorFlow takes GPU memory as it needs it instead of nearly all of it at start, and torch can
share the card. Acting stays in numpy on the CPU whatever the device: at batch size one a GPU call costs a
transfer each way (chapter 43).
"""

from __future__ import annotations

import os
import platform
import re
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from rlkit.errors import RlkitError

PACKAGES = ("numpy", "gymnasium", "torch", "tensorflow-cpu", "tensorflow", "keras", "matplotlib")


def default_threads() -> int:
    """Threads for framework CPU ops: ``RLKIT_THREADS`` if set, else 1."""
    value = os.environ.get("RLKIT_THREADS", "1")
    try:
        threads = int(value)
    except ValueError:
        raise ValueError(f"RLKIT_THREADS must be a positive int, got {value!r}") from None
    if threads < 1:
        raise ValueError(f"RLKIT_THREADS must be a positive int, got {value!r}")
    return threads


def configure_numpy(threads: int | None = None) -> None:
    """Limit the BLAS library numpy calls to ``threads`` threads (default :func:`default_threads`).

    The acting networks run in numpy on matrices far too small to gain from threads, yet numpy's OpenBLAS
    starts one thread per core and keeps them spinning between calls: on a 2-core machine TF's DQN solved
    CartPole in 6.4 s of wall time and 12.3 s of CPU, and torch's and TF's runs side by side (as pytest's
    two workers or a benchmark's two processes run) took 11.2 and 9.6 s instead of 7.9 and 6.6 s
    (``benchmarks/costs/blas_threads.py``, RESULTS.md). The steps to solve did not change, and short runs of five
    algorithms ended with the same weights and evaluations bit for bit either way."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads or default_threads(), user_api="blas")


def configure_torch(threads: int | None = None) -> None:
    """Set torch's intra-op threads (default :func:`default_threads`), and numpy's BLAS to as many; flush
    denormal floats to zero on the CPU, as TensorFlow does.

    Denormals (below 1.2e-38 in float32) take a slow path through the CPU's arithmetic. TensorFlow flushes
    them by default and torch does not: after 4,000 steps of a Rainbow learner, whose tensors had reached
    that range, its Adam step took 1.05 ms in torch against 0.16 ms flushed, and CartPole (seed 0, solved at
    the same 15,000 steps) trained in 79 s instead of 150 s. The flag is the CPU's, for the calling thread: at rlkit's
    default of one intra-op thread that is every torch op (and numpy's, on the same thread).
    """
    import torch

    threads = threads or default_threads()
    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)
    configure_numpy(threads)


def configure_tensorflow(threads: int | None = None) -> None:
    """Set TensorFlow's intra- and inter-op threads and GPU memory growth; only possible before TF runs its
    first op (later calls change nothing: the settings are fixed for the process); numpy's BLAS gets as
    many threads (:func:`configure_numpy`)."""
    import tensorflow as tf

    threads = threads or default_threads()
    configure_numpy(threads)
    try:
        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:
        pass  # TF already started: its thread pools and memory settings are fixed for this process


#: The devices a torch learner accepts (``cuda:N`` too).
DEVICES = ("cpu", "cuda", "mps", "auto")


def check_device(device: str) -> str:
    """Validate a device name without importing torch: "cpu", "cuda", "cuda:N", "mps" or "auto"."""
    if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?|mps|auto", device):
        raise RlkitError(f"device must be one of cpu, cuda, cuda:N, mps, auto; got {device!r}")
    return device


def resolve_device(device: str = "cpu") -> str:
    """The torch device to train on: ``"auto"`` picks CUDA, then Apple's MPS, then the CPU; a named GPU
    that torch cannot see is refused (training on the CPU instead would be a silent surprise)."""
    import torch

    check_device(device)
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "mps" if mps else "cpu"
    if device.startswith("cuda"):
        index = int(device.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            build = torch.version.cuda or "a CPU-only build"
            raise RlkitError(
                f"device {device!r}: torch {torch.__version__} ({build}) sees {torch.cuda.device_count()} CUDA "
                "device(s); use device='cpu' or 'auto'"
            )
    if device == "mps" and not mps:
        raise RlkitError("device 'mps': this torch build sees no Apple GPU; use device='cpu' or 'auto'")
    return device


def tensorflow_device(device: str = "cpu") -> str:
    """The TensorFlow device a learner places its variables and ops on: "/CPU:0" or "/GPU:N".

    ``"cpu"`` is the CPU even where TensorFlow sees a GPU; ``"auto"`` the first GPU it sees, else the CPU;
    ``"cuda:N"`` its N-th GPU and ``"mps"`` its first (an Apple GPU shows as one through tensorflow-metal). A GPU
    it cannot see is refused, naming what it sees, rather than replaced by the CPU.
    """
    import tensorflow as tf

    check_device(device)
    gpus = tf.config.list_physical_devices("GPU")
    if device == "cpu" or (device == "auto" and not gpus):
        return "/CPU:0"
    index = 0 if device in ("auto", "mps") else int(device.partition(":")[2] or 0)
    if index >= len(gpus):
        seen = ", ".join(gpu.name for gpu in gpus) or "no GPU"
        raise RlkitError(f"device {device!r}: TensorFlow {tf.__version__} sees {seen}; use device='cpu' or 'auto'")
    return f"/GPU:{index}"


def on_learner_device(cls: type) -> type:
    """A TensorFlow learner class whose construction and methods each run inside ``tf.device`` of its
    device, so that its variables are created there and every op it runs runs there.

    torch moves each tensor to a device (``.to(device)``); TensorFlow places by scope, and a scope entered
    in one method ends with it, so the class's methods are wrapped once here instead of a ``with`` in each.
    The constructor's scope comes from its ``device`` argument, the methods' from ``self.device`` (what
    :func:`tensorflow_device` made of it).
    """
    import functools
    import inspect

    import tensorflow as tf

    signature = inspect.signature(cls.__init__)

    def placed(method: Callable, init: bool) -> Callable:
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            if init:
                # first: ``tf.device`` starts TensorFlow, and a started TensorFlow keeps its thread pools (every
                # core) whatever a later call asks
                configure_tensorflow()
                bound = signature.bind(self, *args, **kwargs)
                bound.apply_defaults()
                device = tensorflow_device(bound.arguments["device"])
            else:
                device = self.device
            with tf.device(device):
                return method(self, *args, **kwargs)

        return run

    for name, member in list(vars(cls).items()):
        if inspect.isfunction(member):
            setattr(cls, name, placed(member, init=name == "__init__"))
    return cls


def nvidia_driver() -> str | None:
    """The NVIDIA kernel driver's version (Linux), read from /proc without importing anything; None if absent."""
    try:
        text = Path("/proc/driver/nvidia/version").read_text()
    except OSError:
        return None
    found = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)", text)
    return found.group(1) if found else text.splitlines()[0]


def versions(extra: tuple[str, ...] = ()) -> dict[str, str | None]:
    """Installed versions of rlkit's packages and of ``extra`` ones, read from package metadata: nothing is
    imported. A package that is not installed maps to None."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in (*PACKAGES, *extra):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def _cpuinfo(field: str) -> str | None:
    """The first value of ``field`` in ``/proc/cpuinfo`` (Linux), else None."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith(field)), None)


def cpu_model() -> str:
    """The processor's name as the kernel reports it, else what Python knows.

    Timings mean little without it: two "x86_64" machines can differ twofold per core.
    """
    return _cpuinfo("model name") or platform.processor() or platform.machine()


def cpu_vendor() -> str | None:
    """The processor's vendor string (``GenuineIntel``, ``AuthenticAMD``, ...) on Linux, else None."""
    return _cpuinfo("vendor_id")


def blas_note(info: dict) -> str | None:
    """A warning when torch's matrix products run in Intel MKL on a CPU that is not Intel's.

    MKL chooses its kernels by the CPU's vendor, not only by its instructions: on AMD processors it can take a
    generic path. What that costs varies between CPUs of the same vendor (on one AMD EPYC a 256x64 @ 64x64
    product 2.2x slower and a replay gradient step 10-27%, and at MuJoCo's 256x256 torch's SAC and TD3 steps
    1.9-2.0x slower, most of torch's gap to TensorFlow there; on another EPYC, no difference beyond noise at
    64x64; ``benchmarks/costs/blas_path.py`` and ``large_nets.py`` measure it), so the note says "may".
    TensorFlow's oneDNN is not affected, which is what a reader can act on: measure, and where the check costs
    this much, train the TensorFlow twin on that CPU.
    """
    vendor, torch_info = info.get("cpu_vendor"), info.get("torch") or {}
    if torch_info.get("blas") == "mkl" and vendor is not None and vendor != "GenuineIntel":
        return f"torch multiplies matrices with Intel MKL, which may take a slower path on {vendor} CPUs"
    return None


def report(probe_frameworks: bool = False) -> dict:
    """Versions, devices, CUDA/cuDNN build versions and thread settings.

    Framework details need the framework imported: by default only those already imported are asked
    (cheap); ``probe_frameworks=True`` imports torch and TensorFlow (seconds, hundreds of MB).
    """
    info: dict = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpu_vendor": cpu_vendor(),
        "cpu_count": os.cpu_count(),
        "versions": versions(),
        "rlkit_threads": default_threads(),
        "nvidia_driver": nvidia_driver(),
    }
    if probe_frameworks or "torch" in sys.modules:
        info["torch"] = _torch_report()
    if probe_frameworks or "tensorflow" in sys.modules:
        info["tensorflow"] = _tf_report()
    return info


def _torch_report() -> dict:
    try:
        import torch
    except ImportError:
        return {"installed": False}
    cuda = torch.cuda.is_available()
    return {
        "installed": True,
        "version": torch.__version__,
        "cuda_available": cuda,
        "cuda_build": torch.version.cuda,
        "cudnn_build": torch.backends.cudnn.version() if cuda else None,
        "devices": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else [],
        "mps_available": bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()),
        "intra_op_threads": torch.get_num_threads(),
        "blas": "mkl" if "Math Kernel Library" in torch.__config__.show() else "other",
    }


def _tf_report() -> dict:
    try:
        import tensorflow as tf
    except ImportError:
        return {"installed": False}
    build = tf.sysconfig.get_build_info()
    return {
        "installed": True,
        "version": tf.__version__,
        "keras": tf.keras.__version__ if hasattr(tf.keras, "__version__") else None,
        "cuda_build": build.get("cuda_version"),
        "cudnn_build": build.get("cudnn_version"),
        "devices": [d.name for d in tf.config.list_physical_devices()],
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
    }


#: The distributions TensorFlow is installed as (each provides ``import tensorflow``).
TENSORFLOW_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu")


def version_lines(found: dict[str, str | None]) -> list[tuple[str, str]]:
    """``(name, version text)`` per package; TensorFlow is one line whichever distribution provides it (a
    "tensorflow not installed" line under "tensorflow-cpu 2.x" read as if it were missing)."""
    tensorflow = next(
        ((name, found[name]) for name in TENSORFLOW_DISTRIBUTIONS if found.get(name)), ("tensorflow", None)
    )
    lines = []
    for name, version in found.items():
        if name in TENSORFLOW_DISTRIBUTIONS:
            if name != "tensorflow":
                continue
            distribution, version = tensorflow
            text = version or "not installed"
            lines.append((name, text if distribution == "tensorflow" else f"{text} (installed as {distribution})"))
        else:
            lines.append((name, version or "not installed"))
    return lines


def format_report(info: dict | None = None) -> str:
    """The report as aligned text, for ``rlkit report`` and the setup chapter."""
    info = info or report()
    lines = [f"platform     {info['platform']} ({info['cpu_count']} CPUs)"]
    if info.get("cpu"):
        lines.append(f"CPU          {info['cpu']}")
    for name, version in version_lines(info["versions"]):
        lines.append(f"{name:<12} {version}")
    lines.append(f"threads      {info['rlkit_threads']} per framework and numpy's BLAS on CPU (RLKIT_THREADS)")
    lines.append(f"GPU driver   {info.get('nvidia_driver') or 'no NVIDIA driver loaded'}")
    for framework in ("torch", "tensorflow"):
        details = info.get(framework)
        if details and details.get("installed"):
            cuda = details.get("cuda_build") or "none (CPU build)"
            cudnn = details.get("cudnn_build") or "none"
            devices = ", ".join(details["devices"]) or "CPU only"
            lines.append(f"{framework:<12} CUDA build {cuda}, cuDNN {cudnn}; devices: {devices}")
    note = blas_note(info)
    if note:
        lines.append(f"note         {note} (benchmarks/costs/blas_path.py measures it; TensorFlow is not affected)")
    return "\n".join(lines)
