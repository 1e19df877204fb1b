"""Nothing lost or silently wrong: environment faults, interrupts, disk space, run locks, refusals and messages."""
