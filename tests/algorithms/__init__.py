"""The algorithms: twin equivalence, learning, the training loops, resume, devices, export, distributed runs."""
