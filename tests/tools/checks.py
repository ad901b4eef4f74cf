"""Shared by the runs module's Python tests: record checks, print them, exit with the verdict."""
FAILURES = []


def check(cond, what, quiet=False):
    if not quiet or not cond:
        print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def verdict(success_message):
    """Exit code for main(): 1 with the number of failed checks, else 0 with success_message."""
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print(success_message)
    return 0
