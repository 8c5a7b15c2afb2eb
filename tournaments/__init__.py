"""tournaments: runs of many games between engines (round-robins, gauntlets, matches,
SPRTs, tuning), their standings and statistics.

Configs and schedules:

- ``config``: a tournament as data: engines, format, rounds, rules, clock, seed, workers.
- ``schedule``: every pairing (round-robin or gauntlet) and round, one hidden layout a pair.
- ``match_config``: a match's data: two engines, games in pairs on one layout.
- ``differences``: what a resumed config changes, in words.

Runs:

- ``state``: the run folder of a tournament and its lock: config, records, what is missing.
- ``run_kinds``: each kind of run by its state file, and what a new run refuses.
- ``runner``: games played K at once, each record saved the moment its game ends.
- ``cluster``: games played as Dask tasks on workers.
- ``failures``: faults in a row, who is out, and the records of forfeited games.
- ``play``: a whole tournament from a config and a run folder, resume included.
- ``match``: a match as a resumable run.
- ``match_score``: a match to a score: its points, the pairs counted, the ``MatchVerdict``.
- ``sprt``: the GSPRT on pentanomial counts: LLR, bounds, normalized Elo.
- ``sprt_run``: an SPRT as a resumable run.
- ``sprt_chart``: its ``sprt.html``.
- ``tune``: SPSA: the parameter file, the gains, a pair's perturbation and update, the state.
- ``tune_run``: a tuning run.
- ``selfplay``: in-process matches between two built-in players (``SelfPlayGame``), for strength.
- ``referee_bench``: the referee's own CPU cost per ply.

Statistics and reports:

- ``results``: per-game results in (``ScoredGame``); standings rows and head-to-head figures out.
- ``from_records``: standings recomputed from the game records alone.
- ``standings``: standings, crosstable and head-to-head statistics.
- ``elo``: Elo of a score, trinomial and pentanomial Elo, LOS.
- ``ratings``: the Bradley-Terry rating fit with BayesElo's prior.
- ``gauntlet``: a gauntlet's head-to-head lines, from each gauntlet engine's side.
- ``report_tables``: the report's tables as cells of text.
- ``reports``: the reports as text, Markdown, JSON and HTML, and a match's head-to-head line.
- ``report_page``: ``report.html``, one self-contained page.
"""
