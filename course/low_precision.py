"""Low precision in RL: what bf16 and fp16 do to the numbers RL computes (chapter 44).

Mixed precision is sold for its speed and memory on a GPU, and it was designed on supervised
learning, whose losses are of order one and whose targets are exact labels. RL differs in ways
that matter to a 16-bit format: DQN's Q-values grow towards 1/(1 - gamma) = 100 while its TD
errors shrink to a tenth of a reward; SAC takes the log of 1 - tanh(u)^2, which cancels to zero
for large u; C51 moves probability mass between atoms by fractions of an atom; and late in
training the gradients are small enough to fall under fp16's smallest number. Each function
here takes one of those computations, runs it in a low-precision dtype and in float32 or
float64 (the reference), and returns what differs, as a small dataclass or dict, so that the
chapter can print it and assert on it. Passing ``"float32"`` where an experiment expects
``"bfloat16"`` is how the chapter and the tests check that an assert can fail.

Everything runs on the CPU (torch's CPU kernels implement bf16 and fp16, autocast included),
in a few seconds at most. The experiments use plain torch, not rlkit's learners, so that what
is rounded where is visible in a few lines.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

#: The formats, by the names torch gives their dtypes; ``float64`` serves as the reference.
DTYPES = ("float32", "bfloat16", "float16")


@contextmanager
def one_thread():
    """torch on one intra-op thread for the duration, as rlkit trains: for networks this small a
    second thread only waits, and on a machine whose other core is busy it waits long."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def torch_dtype(name: str):
    """The torch dtype of a name in :data:`DTYPES` (or ``"float64"``)."""
    import torch

    return getattr(torch, name)


# ----------------------------------------------------------------------------------------------
# The formats
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Format:
    """What a floating-point format can hold, from ``torch.finfo``."""

    name: str
    bits: int
    exponent_bits: int
    mantissa_bits: int  # stored bits of the significand (one more is implicit)
    eps: float  # the spacing just above 1: relative precision
    smallest_normal: float
    smallest_subnormal: float  # below half of it, a number rounds to zero
    max: float
    spacing_at_64: float  # the gap between neighbours in [64, 128): a Q-value of CartPole


def spacing(value: float, name: str) -> float:
    """The gap between ``value`` and the next larger number of the format (normal range): eps times
    the power of two at or below ``value``. Rounding to the nearest number of the format moves a
    value near ``value`` by at most half of it."""
    import torch

    eps = torch.finfo(torch_dtype(name)).eps
    return float(eps * 2.0 ** math.floor(math.log2(abs(value))))


def formats(names: tuple[str, ...] = DTYPES) -> list[Format]:
    """The facts of each format, read from ``torch.finfo`` rather than typed in, so that the
    chapter's table is what this torch computes with."""
    import torch

    table = []
    for name in names:
        info = torch.finfo(torch_dtype(name))
        mantissa = -int(math.log2(info.eps))
        table.append(
            Format(
                name=name,
                bits=info.bits,
                exponent_bits=info.bits - 1 - mantissa,
                mantissa_bits=mantissa,
                eps=float(info.eps),
                smallest_normal=float(info.smallest_normal),
                smallest_subnormal=float(info.smallest_normal * info.eps),
                max=float(info.max),
                spacing_at_64=spacing(64.0, name),
            )
        )
    return table


def rounded(value: float, name: str) -> float:
    """``value`` stored in the format ``name`` and read back (0.99 in bf16 is 0.98828125)."""
    import torch

    return float(torch.tensor(value, dtype=torch.float64).to(torch_dtype(name)).double())


# ----------------------------------------------------------------------------------------------
# a. DQN's TD errors
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TDRounding:
    """How the TD errors of one batch survive a format, against the exact ones.

    ``pipeline="all"``: the Q-values, the target r + gamma Q' and the TD error are all computed and
    stored in the format. ``pipeline="outputs"``: only the network outputs Q and Q' are in the
    format; they are cast to float32 before the target and the TD error (what rlkit does).
    """

    dtype: str
    pipeline: str
    zero: float  # fraction of TD errors that came out exactly 0
    sign_flipped: float  # fraction whose sign is the opposite of the exact TD error's
    off_by_half: float  # fraction off by more than 50% of the exact TD error
    median_error: float  # median |computed - exact|
    beyond_output_rounding: float  # largest |error - (gamma e' - e)|: e, e' the outputs' rounding


def td_sample(
    n: int = 50_000,
    q_mean: float = 80.0,
    q_std: float = 12.0,
    td_median: float = 0.07,
    gamma: float = 0.99,
    reward: float = 1.0,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """A batch of exact Q-values Q(s, a) ~ N(q_mean, q_std), exact TD errors of median size
    ``td_median`` (normal), and the next-state values Q' that make r + gamma Q' - Q exactly those
    TD errors, in float64. The defaults are CartPole late in training (Q of 60 to 100, TD errors
    of N(0, 0.1)); chapter 44 passes the values of its own run."""
    rng = np.random.default_rng(seed)
    q = rng.normal(q_mean, q_std, n)
    td = rng.normal(0.0, td_median / 0.6745, n)  # a normal's median |x| is 0.6745 sigma
    return {"q": q, "q_next": (q + td - reward) / gamma, "td": td, "gamma": gamma, "reward": reward}


def td_error_rounding(sample: dict[str, np.ndarray], dtype: str, pipeline: str = "all") -> TDRounding:
    """Compute the TD errors of ``sample`` (:func:`td_sample`) in ``dtype`` along ``pipeline``
    (see :class:`TDRounding`) and compare them with the exact ones.

    Why it matters: a TD error is the small difference of two large numbers. Near 100, bf16 holds
    numbers 0.5 apart, so an error of 0.1 can only round to 0 or to a multiple of a quarter.
    """
    import torch

    low = torch_dtype(dtype)
    gamma, reward = sample["gamma"], sample["reward"]
    q = torch.tensor(sample["q"]).to(low)  # the network's outputs, in the format
    q_next = torch.tensor(sample["q_next"]).to(low)
    if pipeline == "all":
        td = (reward + gamma * q_next) - q  # every operation rounds to the format
    elif pipeline == "outputs":
        td = (reward + gamma * q_next.float()) - q.float()  # the rest in float32
    else:
        raise ValueError(f"pipeline is 'all' or 'outputs', got {pipeline!r}")
    td = td.double().numpy()
    exact = sample["td"]
    error = td - exact
    # what the outputs' own rounding alone predicts: gamma e' - e
    e_q = q.double().numpy() - sample["q"]
    e_next = q_next.double().numpy() - sample["q_next"]
    return TDRounding(
        dtype=dtype,
        pipeline=pipeline,
        zero=float(np.mean(td == 0.0)),
        sign_flipped=float(np.mean(td * exact < 0.0)),
        off_by_half=float(np.mean(np.abs(error) > 0.5 * np.abs(exact))),
        median_error=float(np.median(np.abs(error))),
        beyond_output_rounding=float(np.max(np.abs(error - (gamma * e_next - e_q)))),
    )


# ----------------------------------------------------------------------------------------------
# b. SAC's log-probability of a tanh-squashed Gaussian
# ----------------------------------------------------------------------------------------------

LOG_2 = math.log(2.0)
HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def tanh_gaussian_log_prob(mean, log_std, noise, formula: str = "softplus"):
    """log pi(a) of a = tanh(mean + exp(log_std) noise), summed over the action's dimensions, in
    the dtype of the inputs (every operation rounds to it).

    ``formula="naive"`` writes the change of variables as log(1 - tanh(u)^2 + 1e-6), as many
    implementations do; ``"bare"`` as log(1 - tanh(u)^2), without the 1e-6; ``"softplus"`` as
    2 (log 2 - u - softplus(-2u)), the same value without the cancellation 1 - tanh(u)^2 (what
    rlkit's SAC computes).
    """
    import torch
    import torch.nn.functional as F

    u = mean + log_std.exp() * noise
    gaussian = (-0.5 * noise**2 - log_std - HALF_LOG_2PI).sum(-1)
    if formula == "naive":
        correction = torch.log(1.0 - torch.tanh(u) ** 2 + 1e-6).sum(-1)
    elif formula == "bare":
        correction = torch.log(1.0 - torch.tanh(u) ** 2).sum(-1)
    elif formula == "softplus":
        correction = (2.0 * (LOG_2 - u - F.softplus(-2.0 * u))).sum(-1)
    else:
        raise ValueError(f"formula is 'naive', 'bare' or 'softplus', got {formula!r}")
    return gaussian - correction


@dataclass(frozen=True)
class LogProbError:
    """The error of log pi against float64 over a batch of a typical policy's samples."""

    dtype: str
    formula: str
    pipeline: str  # "all": computed in the format; "outputs": mean, log_std rounded, rest float32
    median_error: float  # median |log pi - exact| (nats), over the finite ones
    large: float  # fraction of samples off by more than ``threshold`` nats (non-finite included)
    non_finite: float  # fraction of log pi that are inf or nan
    alpha_term_median_error: float  # median |alpha log pi - alpha exact|
    threshold: float


def sac_policy_sample(n: int = 20_000, action_dim: int = 6, seed: int = 0) -> dict[str, np.ndarray]:
    """Means ~ N(0, 1), log standard deviations ~ U(-1, 0.5) and the noise of a batch of SAC
    actions (float64): a policy partway through training, on HalfCheetah's six action
    dimensions."""
    rng = np.random.default_rng(seed)
    shape = (n, action_dim)
    return {
        "mean": rng.normal(0.0, 1.0, shape),
        "log_std": rng.uniform(-1.0, 0.5, shape),
        "noise": rng.normal(0.0, 1.0, shape),
    }


def log_prob_error(
    sample: dict[str, np.ndarray],
    dtype: str,
    formula: str,
    pipeline: str = "all",
    alpha: float = 0.2,
    threshold: float = 0.5,
) -> LogProbError:
    """log pi of ``sample`` computed in ``dtype`` with ``formula`` (see
    :func:`tanh_gaussian_log_prob`) against the exact value (the softplus form in float64).

    ``pipeline="all"`` computes everything in ``dtype`` (noise included, as a bf16 network's
    sampling head would); ``"outputs"`` rounds only the network's outputs (mean, log_std) to
    ``dtype`` and computes log pi in float32 from them, which is what casting the outputs to
    float32 before the loss does.
    """
    import torch

    def tensor(name: str):
        return torch.tensor(sample[name])

    exact = tanh_gaussian_log_prob(tensor("mean"), tensor("log_std"), tensor("noise")).numpy()
    low = torch_dtype(dtype)
    mean, log_std = tensor("mean").to(low), tensor("log_std").to(low)
    if pipeline == "all":
        noise = tensor("noise").float().to(low)  # the noise arrives as float32
    elif pipeline == "outputs":
        mean, log_std, noise = mean.float(), log_std.float(), tensor("noise").float()
    else:
        raise ValueError(f"pipeline is 'all' or 'outputs', got {pipeline!r}")
    computed = tanh_gaussian_log_prob(mean, log_std, noise, formula).double().numpy()
    finite = np.isfinite(computed)
    error = np.abs(computed - exact)
    return LogProbError(
        dtype=dtype,
        formula=formula,
        pipeline=pipeline,
        median_error=float(np.median(error[finite])),
        large=float(np.mean(~finite | (error > threshold))),
        non_finite=float(np.mean(~finite)),
        alpha_term_median_error=float(alpha * np.median(error[finite])),
        threshold=threshold,
    )


def tanh_breakdown(dtype: str, tolerance: float = 1.0, u_max: float = 12.0) -> dict[str, float]:
    """Where the squashing breaks in ``dtype``, on a fine grid of pre-tanh values u >= 0.

    ``saturates_at``: the smallest u whose tanh rounds to exactly 1 (the action is +-1 and 1 -
    tanh(u)^2 is 0); ``naive_fails_at``: the smallest u where the naive correction log(1 - tanh(u)^2
    + 1e-6) is off the exact log(1 - tanh(u)^2) by more than ``tolerance`` nats (even in exact
    arithmetic the 1e-6 does that from u of about 8 on); ``action_at_failure``: tanh of that u, in
    float64; ``naive_without_eps_at_saturation``: log(1 - tanh(u)^2) at ``saturates_at``, -inf.
    """
    import torch
    import torch.nn.functional as F

    u64 = torch.arange(0.0, u_max, 1e-3, dtype=torch.float64)
    exact = (2.0 * (LOG_2 - u64 - F.softplus(-2.0 * u64))).numpy()
    u = u64.to(torch_dtype(dtype))
    tanh = torch.tanh(u)
    naive = torch.log(1.0 - tanh**2 + 1e-6).double().numpy()
    grid = u64.numpy()
    saturated = (tanh == 1.0).numpy()
    failed = np.abs(naive - exact) > tolerance
    fails_at = float(grid[failed.argmax()]) if failed.any() else math.inf
    bare = torch.log(1.0 - tanh**2).double().numpy()
    return {
        "saturates_at": float(grid[saturated.argmax()]) if saturated.any() else math.inf,
        "naive_fails_at": fails_at,
        "action_at_failure": math.tanh(fails_at) if math.isfinite(fails_at) else 1.0,
        "naive_without_eps_at_saturation": float(bare[saturated.argmax()]) if saturated.any() else 0.0,
    }


# ----------------------------------------------------------------------------------------------
# c. C51's projection and cross-entropy
# ----------------------------------------------------------------------------------------------


def project(probs, rewards, discounts, support):
    """rlkit's "hat" projection (:func:`rlkit.distributional.project_distribution`) in torch, in
    the dtype of ``probs``: every operation, the atoms' positions included, rounds to it."""
    import torch

    v_min, v_max = support[0], support[-1]
    delta = (v_max - v_min) / (len(support) - 1)
    shifted = torch.clamp(rewards[:, None] + discounts[:, None] * support[None, :], v_min, v_max)
    position = (shifted - v_min) / delta
    atoms = torch.arange(len(support), dtype=position.dtype)
    hats = torch.clamp(1.0 - torch.abs(position[:, :, None] - atoms[None, None, :]), min=0.0)
    return (probs[:, None, :] @ hats)[:, 0]


def c51_sample(
    batch: int = 512,
    n_atoms: int = 51,
    v_min: float = -100.0,
    v_max: float = 100.0,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Logits of next-state return distributions peaked around Q' ~ U(60, 100) (a width of one to
    three atoms), online logits around a nearby mean, and the rewards and discounts of a
    CartPole batch (reward 1, gamma 0.99), in float64. rlkit's default support, [-100, 100] with
    51 atoms, puts the atoms 4 apart."""
    rng = np.random.default_rng(seed)
    support = np.linspace(v_min, v_max, n_atoms)
    delta = support[1] - support[0]

    def logits(centre: np.ndarray) -> np.ndarray:
        width = rng.uniform(1.0, 3.0, (batch, 1)) * delta
        noise = rng.normal(0.0, 0.3, (batch, n_atoms))
        return -np.abs(support[None, :] - centre[:, None]) / width + noise

    centre = rng.uniform(60.0, 100.0, batch)
    return {
        "support": support,
        "next_logits": logits(centre),
        "logits": logits(centre + rng.normal(0.0, 2.0, batch)),
        "rewards": np.ones(batch),
        "discounts": np.full(batch, 0.99),
    }


def c51_loss_terms(sample: dict[str, np.ndarray], dtype: str, pipeline: str = "all") -> dict[str, np.ndarray]:
    """The projected target ``m``, the cross-entropy ``loss`` -sum m log softmax(logits) per
    sample and its gradient with respect to the logits, ``grad`` = softmax(logits) - m, computed
    in ``dtype`` (``pipeline="all"``) or from logits rounded to ``dtype`` and then cast to float32
    (``"outputs"``, what rlkit does), returned as float64 arrays."""
    import torch

    low = torch_dtype(dtype)
    logits = torch.tensor(sample["logits"]).to(low)
    next_logits = torch.tensor(sample["next_logits"]).to(low)
    work = low
    if pipeline == "outputs":
        logits, next_logits, work = logits.float(), next_logits.float(), torch.float32
    elif pipeline != "all":
        raise ValueError(f"pipeline is 'all' or 'outputs', got {pipeline!r}")

    def tensor(name: str):
        return torch.tensor(sample[name]).to(work)

    target = project(torch.softmax(next_logits, -1), tensor("rewards"), tensor("discounts"), tensor("support"))
    loss = -(target * torch.log_softmax(logits, -1)).sum(-1)
    grad = torch.softmax(logits, -1) - target
    return {"m": target.double().numpy(), "loss": loss.double().numpy(), "grad": grad.double().numpy()}


def c51_rounding(sample: dict[str, np.ndarray], dtype: str, pipeline: str = "all") -> dict[str, float]:
    """What C51's target and loss lose in ``dtype`` against float64.

    ``sum_error_max``: the largest |sum(m) - 1| over the batch; ``target_error_l1``: the median
    L1 distance between the projected targets; ``loss_error``: the median |loss - exact|;
    ``grad_error``: the median of |grad - exact| / |exact grad| (L2 norms over the atoms), how far
    the direction the logits are pushed is off; ``lost_atoms``: the fraction of the exact target's
    nonzero atoms that came out as exactly 0; ``tail_atoms``: the fraction of them whose mass is
    below half the format's eps, too small to change a sum near one in the format;
    ``position_error_max``: the largest error of an atom's landing position b = (r + gamma z -
    v_min) / dz on the grid of atoms (in atoms) when computed in the format (``"all"``) or in
    float32 (``"outputs"``): the hat weights max(0, 1 - |b - j|) inherit it. In ``"all"`` the
    discounts are bf16 numbers too (0.99 is 0.98828125); with gamma kept exact, the largest bf16
    position error on rlkit's default support is the same, 0.17 atoms: the positions' own
    rounding dominates.
    """
    import torch

    exact = c51_loss_terms(sample, "float64")
    low = c51_loss_terms(sample, dtype, pipeline)
    grad_error = np.linalg.norm(low["grad"] - exact["grad"], axis=-1) / np.linalg.norm(exact["grad"], axis=-1)
    nonzero = exact["m"] > 0.0
    work = torch_dtype(dtype) if pipeline == "all" else torch.float32
    support = sample["support"]
    delta = (support[-1] - support[0]) / (len(support) - 1)

    def positions(kind):
        z, r, d = (torch.tensor(sample[k]).to(kind) for k in ("support", "rewards", "discounts"))
        return (((r[:, None] + d[:, None] * z[None, :]) - z[0]) / delta).double().numpy()

    eps = torch.finfo(torch_dtype(dtype)).eps
    return {
        "sum_error_max": float(np.max(np.abs(low["m"].sum(-1) - 1.0))),
        "target_error_l1": float(np.median(np.abs(low["m"] - exact["m"]).sum(-1))),
        "loss_error": float(np.median(np.abs(low["loss"] - exact["loss"]))),
        "grad_error": float(np.median(grad_error)),
        "lost_atoms": float(np.mean(low["m"][nonzero] == 0.0)),
        "tail_atoms": float(np.mean(exact["m"][nonzero] < eps / 2)),
        "position_error_max": float(np.max(np.abs(positions(work) - positions(torch.float64)))),
        "exact_loss": float(np.median(exact["loss"])),
    }


def c51_loss_steps(
    sample: dict[str, np.ndarray],
    steps: int = 60,
    hidden: tuple[int, int] = (64, 64),
    learning_rate: float = 1e-3,
    seed: int = 0,
) -> np.ndarray:
    """The loss changes |L_t+1 - L_t| of ``steps`` Adam steps of a 64x64 network (CartPole-sized
    observations) fitted in float32 to the batch's exact targets: a yardstick for how much one
    update moves C51's loss, beside what rounding moves it by."""
    import torch

    torch.manual_seed(seed)
    target = torch.tensor(c51_loss_terms(sample, "float64")["m"], dtype=torch.float32)
    obs = torch.tensor(np.random.default_rng(seed).normal(0.0, 0.5, (len(target), 4)), dtype=torch.float32)
    net = _mlp(4, target.shape[1], hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    losses = []
    with one_thread():
        for _ in range(steps + 1):
            loss = -(target * torch.log_softmax(net(obs), -1)).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return np.abs(np.diff(losses))


# ----------------------------------------------------------------------------------------------
# d. Loss scaling
# ----------------------------------------------------------------------------------------------


def _mlp(in_dim: int, out_dim: int, hidden: tuple[int, ...]):
    """A ReLU MLP with torch's default initialisation, as rlkit builds its networks."""
    import torch

    layers: list = []
    for width in hidden:
        layers += [torch.nn.Linear(in_dim, width), torch.nn.ReLU()]
        in_dim = width
    layers.append(torch.nn.Linear(in_dim, out_dim))
    return torch.nn.Sequential(*layers)


@dataclass(frozen=True)
class GradientUnderflow:
    """The gradient of a DQN-like Huber loss computed under autocast in ``dtype``, with the loss
    multiplied by ``scale`` before backward and the gradients divided by it after (in float32)."""

    dtype: str
    scale: float
    underflow: float  # fraction of entries nonzero in float32 that came out exactly 0
    relative_error: float  # |grad - float32 grad| / |float32 grad| over all parameters
    non_finite: int  # entries that overflowed to inf or nan


def gradient_underflow(
    dtype: str,
    scale: float = 1.0,
    td_range: tuple[float, float] = (1e-3, 1e-2),
    batch: int = 128,
    hidden: tuple[int, int] = (64, 64),
    seed: int = 0,
    loss: str = "huber",
) -> GradientUnderflow:
    """One backward pass of a Q-network (CartPole: 4 inputs, 2 actions) on a batch whose TD
    errors have magnitudes log-uniform in ``td_range`` (late in training), under
    ``torch.autocast("cpu", dtype)``, against the same pass in float32.

    The Huber loss of errors below 1 is half their square, so the gradient reaching the
    network's output is the TD error over the batch size: 1e-3 / 128 is about 8e-6, already
    below fp16's smallest normal number, and the products of the backward pass go lower.

    ``loss`` picks whose gradient: ``"huber"`` (DQN), ``"squared"`` (the critics of DDPG, TD3
    and SAC: the mean squared TD error, twice the gradient) or ``"policy"`` (A2C and PPO: the
    policy-gradient loss -log pi(a|s) A over the same network's two logits, with advantages
    standardised per batch as rlkit's PPO does, so ``td_range`` plays no part and the gradient
    does not shrink late in training).
    """
    import torch

    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = _mlp(4, 2, hidden)
    obs = torch.tensor(rng.normal(0.0, [0.1, 0.5, 0.05, 0.5], (batch, 4)), dtype=torch.float32)
    actions = torch.tensor(rng.integers(0, 2, batch))
    magnitude = np.exp(rng.uniform(*np.log(td_range), batch))
    td = torch.tensor(magnitude * rng.choice([-1.0, 1.0], batch), dtype=torch.float32)
    raw = rng.normal(size=batch)
    advantages = torch.tensor((raw - raw.mean()) / raw.std(), dtype=torch.float32)
    if loss not in ("huber", "squared", "policy"):
        raise ValueError(f"loss must be 'huber', 'squared' or 'policy', got {loss!r}")

    def gradients(low, loss_scale: float) -> list:
        net.zero_grad()
        half = low in (torch.bfloat16, torch.float16)  # float32: no autocast at all
        with torch.autocast("cpu", dtype=low if half else torch.bfloat16, enabled=half):
            q = net(obs)
        if loss == "policy":  # logits cast to float32 (rlkit), standardised advantages
            log_p = torch.log_softmax(q.float(), dim=-1).gather(1, actions[:, None])[:, 0]
            value = -(log_p * advantages).mean()
        else:
            q = q.float().gather(1, actions[:, None])[:, 0]  # outputs cast to float32 (rlkit)
            target = (q + td).detach()  # a target that gives exactly these TD errors
            error = torch.nn.functional
            value = error.huber_loss(q, target) if loss == "huber" else error.mse_loss(q, target)
        (value * loss_scale).backward()
        return [p.grad.detach().clone() / loss_scale for p in net.parameters()]

    with one_thread():
        reference = torch.cat([g.flatten() for g in gradients(None, 1.0)])
        low = torch.cat([g.flatten() for g in gradients(torch_dtype(dtype), scale)])
    nonzero = reference != 0
    return GradientUnderflow(
        dtype=dtype,
        scale=scale,
        underflow=float((low[nonzero] == 0).float().mean()),
        relative_error=float((low - reference).norm() / reference.norm()),
        non_finite=int((~torch.isfinite(low)).sum()),
    )


# ----------------------------------------------------------------------------------------------
# e. Speed on this CPU
# ----------------------------------------------------------------------------------------------


def cpu_16bit_instructions() -> dict[str, bool]:
    """Whether this CPU has the instructions that compute in bf16 or fp16 natively, from Linux's
    ``/proc/cpuinfo`` (x86's ``flags``, ARM's ``Features``; an empty dict elsewhere). Without them
    the arithmetic runs in float32 on converted copies, which is why one CPU's bf16 speed says
    little about another's."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            lines = [line for line in info if line.startswith(("flags", "Features"))]
    except OSError:
        return {}
    if not lines:
        return {}
    flags = lines[0].split(":", 1)[1].split()
    names = ("avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16") if lines[0].startswith("flags") else ("bf16",)
    return {name: name in flags for name in names}


def time_mlp_step(
    widths: tuple[int, ...] = (64, 256),
    batch: int = 256,
    repeats: int = 15,
    calls: int = 20,
    in_dim: int = 8,
    seed: int = 0,
) -> dict[int, dict[str, float]]:
    """Median seconds of one forward and backward pass of an MLP (in_dim -> width -> width -> 1)
    per width, in float32 and under bf16 autocast, on one CPU thread (rlkit trains on one).

    The two are timed in alternation, ``calls`` passes per timing, ``repeats`` timings each, so
    that a slowdown of the machine (another process on the other core) falls on both; the ratio
    ``bf16 / fp32`` is what to read, not the absolute times.
    """
    import torch

    with one_thread():
        torch.manual_seed(seed)
        results = {}
        for width in widths:
            net = _mlp(in_dim, 1, (width, width))
            x = torch.randn(batch, in_dim)

            def step(low, net=net, x=x) -> None:
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=low):
                    out = net(x)
                out.float().square().mean().backward()
                net.zero_grad(set_to_none=True)

            times: dict[str, list[float]] = {"fp32": [], "bf16": []}
            for low in (False, True):  # warm-up: allocation and kernel selection
                for _ in range(3):
                    step(low)
            for _ in range(repeats):
                for name, low in (("fp32", False), ("bf16", True)):
                    start = time.perf_counter()
                    for _ in range(calls):
                        step(low)
                    times[name].append((time.perf_counter() - start) / calls)
            medians = {name: float(np.median(t)) for name, t in times.items()}
            results[width] = {**medians, "ratio": medians["bf16"] / medians["fp32"]}
        return results


def time_keras_step(
    widths: tuple[int, ...] = (64, 256),
    batch: int = 256,
    repeats: int = 10,
    calls: int = 20,
    in_dim: int = 8,
    seed: int = 0,
) -> dict[int, dict[str, float]]:
    """The same forward and backward pass in Keras (a traced ``tf.function``), float32 against
    the ``"mixed_bfloat16"`` dtype policy (the layers compute in bf16 and keep float32 weights),
    alternating as :func:`time_mlp_step` does."""
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(seed)
    x = tf.random.normal((batch, in_dim), seed=seed)

    def build(width: int, policy: str):
        layers = [keras.layers.Dense(width, activation="relu", dtype=policy) for _ in range(2)]
        net = keras.Sequential([keras.Input((in_dim,)), *layers, keras.layers.Dense(1, dtype=policy)])

        @tf.function
        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.cast(net(x), tf.float32)))
            return tape.gradient(loss, net.trainable_variables)

        return step

    results = {}
    for width in widths:
        steps = {"fp32": build(width, "float32"), "bf16": build(width, "mixed_bfloat16")}
        for step in steps.values():  # tracing, then warm-up
            for _ in range(3):
                step()
        times: dict[str, list[float]] = {name: [] for name in steps}
        for _ in range(repeats):
            for name, step in steps.items():
                start = time.perf_counter()
                for _ in range(calls):
                    step()
                times[name].append((time.perf_counter() - start) / calls)
        medians = {name: float(np.median(t)) for name, t in times.items()}
        results[width] = {**medians, "ratio": medians["bf16"] / medians["fp32"]}
    return results


def training_in_precision(low: dict, exact: dict) -> list[dict]:
    """The committed default runs at a low precision beside the float32 runs of the same configurations and
    seeds: per (algorithm, task, framework), the seeds whose final agent ended solved, the median final
    return, the share of late evaluations solved (:func:`course.measured.late_share`) and the median CPU
    seconds of each, from two results files of ``benchmarks.learning.endings`` (``low``: a ``--set
    precision=...`` pass; ``exact``: the float32 runs)."""
    from course.measured import late_share

    rows = []
    keys = sorted({(r["algo"], r["env"], r["framework"]) for r in low["runs"]})
    for key in keys:
        pair = {}
        for name, document in (("low", low), ("exact", exact)):
            runs = {r["seed"]: r for r in document["runs"] if (r["algo"], r["env"], r["framework"]) == key}
            pair[name] = runs
        seeds = sorted(set(pair["low"]) & set(pair["exact"]))
        row = {"algo": key[0], "env": key[1], "framework": key[2], "seeds": len(seeds)}
        for name, runs in pair.items():
            chosen = [runs[seed] for seed in seeds]
            row[f"{name}_solved"] = sum(run["final_solved"] for run in chosen)
            row[f"{name}_median"] = float(np.median([run["final_mean"] for run in chosen]))
            row[f"{name}_late"] = late_share(chosen)
            row[f"{name}_cpu_s"] = float(np.median([run["cpu_s"] for run in chosen]))
        rows.append(row)
    return rows


def permutation_p(low: np.ndarray, exact: np.ndarray, draws: int = 20_000, seed: int = 0) -> float:
    """One-sided permutation test: the share of random relabellings of the runs whose mean falls from the
    ``exact`` group to the ``low`` group by at least as much as measured. Small: the drop is unlikely to be
    the luck of the seeds; near 0.5: no sign of one."""
    both = np.concatenate([low, exact]).astype(np.float64)
    measured = exact.mean() - low.mean()
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(draws):
        rng.shuffle(both)
        hits += both[len(low) :].mean() - both[: len(low)].mean() >= measured
    return hits / draws


def final_means(document: dict, algo: str, env: str, seeds: set[int]) -> np.ndarray:
    """The final agents' mean returns of ``algo`` on ``env`` in a results file, both frameworks, on
    ``seeds``."""
    return np.array(
        [r["final_mean"] for r in document["runs"] if (r["algo"], r["env"]) == (algo, env) and r["seed"] in seeds]
    )
