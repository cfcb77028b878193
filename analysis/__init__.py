"""Analysis of result rows (RESULTS_SCHEMA columns); depends on clawmark.results only, never on Prefect.

load (store root or one Parquet file) · metrics (pass@1 + bootstrap CI, pass@k, pass^k, mean
score) · pareto (cost vs accuracy front, bootstrap front share) · ranking (rank intervals,
P(first), Kendall agreement) · coverage (missing cells, status counts) · lite (Lite subset).
"""
