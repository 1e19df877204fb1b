"""Finding Ray: the one place that imports it, and the one that starts it or joins a running cluster."""

from __future__ import annotations

from rlkit.errors import RlkitError


def require_ray(purpose: str = "this"):
    """The ``ray`` module, or an error that says what ``purpose`` needs installed (Ray is an optional extra)."""
    try:
        import ray
    except ImportError:
        raise RlkitError(f"{purpose} runs on Ray, which is not installed: pip install 'rlkit-course[ray]'") from None
    return ray


def connect(address: str | None = None, purpose: str = "this"):
    """Ray, initialised: the session already running in this process, the cluster at ``address`` (what
    ``ray start --head`` printed, or ``"auto"``), or else a new one-machine cluster on this machine's cores.

    An existing session wins, so a test or a notebook decides the cluster once (``ray.init(...)``) and every
    run after it uses that one; the caller that started Ray is the one that shuts it down.
    """
    ray = require_ray(purpose)
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, logging_level="ERROR")
        except Exception as exc:  # Ray's own (ConnectionError, RuntimeError, its timeouts): say what to do
            raise RlkitError(ray_failure(address, exc)) from exc
    elif address is not None and address != "auto":
        joined = ray.get_runtime_context().gcs_address
        if joined != address:
            raise RlkitError(
                f"this process is already connected to the Ray cluster at {joined}, not {address}: call "
                "ray.shutdown() first to join another"
            )
    return ray


def ray_failure(address: str | None, exc: Exception) -> str:
    """The message of a Ray start-up or connection failure: what failed, Ray's reason, and the fix."""
    reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}".removesuffix(": ")
    if address is not None:
        return (
            f"could not join the Ray cluster at ray_address={address!r} ({reason}): start one with `ray start "
            "--head` and pass the address it prints (or 'auto' on its head machine), or leave ray_address unset "
            "to start Ray in this process"
        )
    return (
        f"Ray could not start on this machine ({reason}); on a busy machine its node can time out during "
        "start-up: retry when fewer processes run, start Ray yourself (`ray start --head`) and pass "
        "ray_address='auto' (--ray-address auto), or train without workers="
    )
