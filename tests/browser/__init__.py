"""The executed book and the slider chapters in a real browser (`make browser-test`)."""
