"""Reading graphopt's versioned JSON files from the scripts beside this one: the file
parsed, its format and version checked, every failure an exit that names the file."""
import json
import sys


def read_versioned(path, fmt, versions, what):
    """The parsed file at path, whose "format" is fmt and "version" one of versions;
    otherwise exits with an error naming the file and `what` it should have been."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"error: {path}: {e}")
    if not isinstance(data, dict) or data.get("format") != fmt or data.get("version") not in versions:
        wanted = " or ".join(str(v) for v in versions)
        sys.exit(f"error: {path}: not {what} (format {fmt}, version {wanted})")
    return data
