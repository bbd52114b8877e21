"""The paraphrase sets re-ask their originals' questions and nothing else.

benchmarks/answer_bench.py's PARAPHRASE sets (benchmarks/truth/paraphrase-questions-<corpus>.yaml)
re-ask a tunable blind set's questions in other voices with the original's gold unchanged, so a
miss on a paraphrase the original answers means a rule learned wording, not the fact. Their gold
is the original's (tests/test_blind_sets.py keeps that true to the corpus), so here each
paraphrase must carry exactly an original question's kind, principal, gold pages and values;
a set that names its originals (`of`) must re-ask every one of them, unanswerable ones included,
and never ask the original's words verbatim.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]

import answer_bench  # noqa: E402

GOLD = ("kind", "principal", "gold_pages", "gold_values")


def _load(path: Path) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _original(paraphrases: Path) -> Path:
    name = paraphrases.stem.removeprefix("paraphrase-questions-")
    return paraphrases.parent / f"{name}-questions.yaml"


SETS = [q for _, q in answer_bench.PARAPHRASE]


def test_every_paraphrase_set_on_disk_is_registered() -> None:
    on_disk = set((ROOT / "benchmarks" / "truth").glob("paraphrase-questions-*.yaml"))
    assert on_disk == set(SETS)
    for corpus, questions in answer_bench.PARAPHRASE:
        assert corpus.is_dir() and questions.is_file() and _original(questions).is_file()


@pytest.mark.parametrize("path", SETS, ids=[p.stem for p in SETS])
def test_each_paraphrase_keeps_an_original_questions_gold(path: Path) -> None:
    para, orig = _load(path), _load(_original(path))
    ids = [q["id"] for q in para]
    assert len(ids) == len(set(ids))
    signatures = Counter(tuple(str(q[k]) for k in GOLD) for q in orig)
    for q in para:
        assert tuple(str(q[k]) for k in GOLD) in signatures, q["id"]
        assert q["question"] not in {o["question"] for o in orig}, f"{q['id']} is not re-asked"


@pytest.mark.parametrize("path", [p for p in SETS if all("of" in q for q in _load(p))],
                         ids=lambda p: p.stem)
def test_a_set_naming_its_originals_reasks_every_question(path: Path) -> None:
    para, orig = _load(path), {q["id"]: q for q in _load(_original(path))}
    assert Counter(q["of"] for q in para) == Counter(list(orig)), "each original re-asked exactly once"
    for q in para:
        o = orig[q["of"]]
        assert {k: q[k] for k in GOLD} == {k: o[k] for k in GOLD}, q["id"]
    kinds = Counter(q["kind"] for q in para)
    assert kinds["unanswerable"] >= 15 and kinds["restricted"] >= 3
