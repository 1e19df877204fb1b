"""course: what only the chapters need, beside the rlkit library.

rlkit is the library a reader trains with (``rlkit.train``, ``rlkit.load``, the command line); this package
holds the course around it, and imports rlkit, never the other way round:

- :mod:`course.pitfalls`: each claim's experiment, a function a chapter calls and asserts on;
- :mod:`course.exercises`: the checks of the chapters' exercises (and their stored numbers);
- :mod:`course.show`: the twins side by side in JupyterLab, and sliders that also render in the book;
- :mod:`course.plots`: the chapters' learning-curve and schedule figures;
- :mod:`course.measured`: the benchmarks' committed results files, which chapters read instead of re-running;
- :mod:`course.estimators`: REINFORCE's gradient estimators in numpy (chapter 20);
- :mod:`course.timing`: what an update and a forward pass cost on a device (chapter 43);
- :mod:`course.blas`: what Intel MKL's vendor check costs torch on this CPU (chapter 43).

Importing course, like importing rlkit, imports no framework.
"""
