"""A game's DCTP transcript stays bounded whatever an engine writes, and keeps what matters."""

from referee.transcript import ENGINE_OUTPUT_CHARS, STDERR_TAIL_CHARS, Transcript


def test_commands_are_all_kept_and_stdout_is_cut_after_its_bound() -> None:
    transcript = Transcript()
    log = transcript.logger("flood")
    noise = "< " + "n" * 999
    for index in range(3000):
        log(f"> 12 genmove red {index}")
        log(noise)
    text = transcript.text()
    lines = text.splitlines()
    assert sum("> 12 genmove red" in line for line in lines) == 3000
    kept = [line for line in lines if line.endswith("n" * 999)]
    assert ENGINE_OUTPUT_CHARS - 1100 < sum(len(line) for line in kept) <= ENGINE_OUTPUT_CHARS
    assert sum("[stdout beyond" in line for line in lines) == 1
    assert len(text) < ENGINE_OUTPUT_CHARS + 3000 * 40


def test_stderr_keeps_its_last_lines_and_says_how_much_went() -> None:
    transcript = Transcript()
    quiet, loud = transcript.logger("quiet"), transcript.logger("loud")
    quiet("> 14 ready")
    for index in range(10_000):
        loud(f"! line {index:05d} " + "e" * 500)
    quiet("! the quiet engine's one stderr line")
    lines = transcript.text().splitlines()
    loud_lines = [line for line in lines if "[loud] ! line" in line]
    assert loud_lines[-1].split()[4] == "09999"
    numbers = [int(line.split()[4]) for line in loud_lines]
    assert numbers == sorted(numbers) and numbers == list(range(numbers[0], 10_000))
    assert sum(len(line) for line in loud_lines) <= STDERR_TAIL_CHARS
    [note] = [line for line in lines if "earlier stderr not kept" in line]
    assert lines.index(note) == lines.index(loud_lines[0]) - 1
    dropped = int(note.split("! [")[1].split()[0])
    assert dropped == sum(
        len(f"{0:9.3f} [loud] ! line {i:05d} " + "e" * 500) for i in range(numbers[0])
    )
    assert lines[0].endswith("[quiet] > 14 ready")
    assert lines[-1].endswith("[quiet] ! the quiet engine's one stderr line")
