"""Print a per-column profile of a CSV file."""
import collections
import csv
import sys

with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
for column in rows[0].keys() if rows else []:
    values = [r[column] for r in rows]
    missing = sum(1 for v in values if v == "")
    common = collections.Counter(v for v in values if v).most_common(5)
    print(f"{column}: {missing} missing, most common {common}")
