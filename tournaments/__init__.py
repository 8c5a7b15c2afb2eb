"""tournaments: runs of many games between engines (round-robins, gauntlets, matches,
SPRTs, tuning), their standings and statistics.

One core runs them all (as fastchess's SPRT is a stop rule of one tournament): one pair
schedule, one config base, one way to open a run folder, one pair counter under the stop
rules, one runner; and each kind of run is one library call (a ``*_job`` module) that the
command line only parses options for.

The run core:

- ``run_config``: what every run's config shares, and which of its fields may change on
  resume.
- ``pairs``: the pair schedule (game ``i`` on deal ``i // 2``, the seats swapped) and the
  game ids.
- ``pair_count``: ``PairCounter``, games counted in complete pairs in pair order until a
  stop rule ends the run (on its own: a fixed number of games).
- ``run_folder``: a run folder's state file opened for a new or resumed run, its lock, its
  records (each file's MAC checked).
- ``run_kinds``: each kind of run by its state file, and what a new run refuses.
- ``run_size``: how many games a run may hold, and whether its schedule fits in memory,
  checked before the schedule is built.
- ``run_start``: a run folder taken, its state written and records read before any engine
  starts, and left as it was found if the run stops before changing it.
- ``run_adopt``: a run folder of a banqi older than MACs signed as it is
  (``--adopt-unsigned``).
- ``run_access``: what a run may read and what its engines must not see; default folders.
- ``engine_places``: where games are played (sandboxed here, or on a cluster), and the
  check of every engine before the first game.
- ``placed_options``: the runner's options of where a job's games are played.
- ``differences``: what a resumed config changes, in words.
- ``runner``: games played K at once, each record saved the moment its game ends.
- ``run_control``: an organiser's pauses and forfeits of a run, kept in its folder.
- ``cluster``: games played as Dask tasks on workers.
- ``failures``: faults in a row, who is out, and the records of forfeited games.

The kinds of run:

- ``config``: a tournament as data: engines, format, rounds, rules, clock, seed, workers.
- ``schedule``: every pairing (round-robin or gauntlet) and round, one hidden layout a pair.
- ``state``: a tournament's state file, ``tournament.json``.
- ``play``: a whole tournament from a config and a run folder, resume included.
- ``tournament_job``: a whole tournament as one call: keys, books, engines, lock, resume.
- ``match_config``: a match's data: two engines, games in pairs on one layout.
- ``match``: a match as a resumable run.
- ``match_score``: a match to a score: its points, the pairs counted, the ``MatchVerdict``.
- ``match_job``: a whole match as one call.
- ``sprt``: the GSPRT on pentanomial counts: LLR, bounds, normalized Elo.
- ``sprt_run``: an SPRT as a resumable run, its verdict a stop rule over the pair counter.
- ``sprt_chart``: its ``sprt.html``.
- ``sprt_job``: a whole SPRT as one call.
- ``tune``: SPSA: the parameter file, the gains, a pair's perturbation and update, the state.
- ``tune_run``: a tuning run.
- ``tune_job``: a whole tuning run as one call.
- ``selfplay``: in-process matches between two built-in players (``SelfPlayGame``), for strength.
- ``referee_bench``: the referee's own CPU cost per ply.

Statistics and reports:

- ``results``: per-game results in (``ScoredGame``); standings rows and head-to-head figures out.
- ``from_records``: standings recomputed from the game records alone.
- ``standings``: standings, crosstable and head-to-head statistics.
- ``elo``: Elo of a score, trinomial and pentanomial Elo, LOS.
- ``ratings``: the Bradley-Terry rating fit with BayesElo's prior.
- ``gauntlet``: a gauntlet's head-to-head lines, from each gauntlet engine's side.
- ``report_about``: the block about the run that the reports and the SPRT chart show.
- ``report_tables``: the report's tables as cells of text.
- ``reports``: the reports as text, Markdown, JSON and HTML, and a match's head-to-head line.
- ``report_page``: ``report.html``, one self-contained page.
- ``run_records``: the records of run folders, read and replayed, for figures over them.
- ``piece_values``: the value of each kind of piece, for figures about material.
- ``phase_material``: where the material goes: each engine's captures while pieces are face
  down and after the last flip.
- ``face_up_review``: an engine's face-up moves in run records searched again, short and deep.
"""
