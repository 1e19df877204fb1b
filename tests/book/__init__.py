"""The book as a whole: chapter house rules, the build report, the README run as written, the wheel install."""
