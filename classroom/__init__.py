"""Classroom tooling (not part of the rlkit package): otter-grader assignments from the chapters and their grading."""
