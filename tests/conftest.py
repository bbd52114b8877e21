"""Shared fixtures: the bundled Acme corpus, compiled once per session (read-only use only)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki

# Compiles sign with the local key at FOLIO_KEY_PATH, created on first use: keep the tests' key
# out of the developer's ~/.config.
TEST_KEY = Path(tempfile.mkdtemp(prefix="folio-test-keys-")) / "signing-key.pem"
os.environ["FOLIO_KEY_PATH"] = str(TEST_KEY)
for _var in ("FOLIO_TRUSTED_KEY", "FOLIO_SIGNING"):
    os.environ.pop(_var, None)
# made now, not by whichever compile runs first: tests that load it must not depend on order
from compiler.provenance.signers import LocalKeySigner  # noqa: E402

LocalKeySigner.generate(TEST_KEY)

ACME = Path(__file__).resolve().parents[1] / "examples" / "acme"
TODAY = "2026-11-21"
NOW = "2026-11-21T00:00:00+00:00"

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """CLI output without terminal escapes (rich adds none when not a tty, but be safe)."""
    return _ANSI.sub("", text)


def flat(text: str) -> str:
    """Output with every run of whitespace collapsed (rich wraps long lines)."""
    return " ".join(strip_ansi(text).split())


@pytest.fixture(scope="session")
def acme_src() -> Path:
    return ACME


@pytest.fixture(scope="session")
def acme_wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples/acme`` compiled once; tests must not modify it (copy it first)."""
    wiki = tmp_path_factory.mktemp("acme-wiki") / "wiki"
    report = compile_wiki(ACME, wiki, today=TODAY)
    assert report.rejected == 0, [str(e) for e in report.errors]
    return wiki


@pytest.fixture(scope="module")
def acme_state(acme_wiki: Path):  # noqa: ANN201
    """The compiled Acme wiki's state, open for one test module (read only)."""
    from compiler.build import wiki_state

    st = wiki_state(acme_wiki)
    yield st
    st.close()


@pytest.fixture
def acme_copy(tmp_path: Path) -> Path:
    """A private, modifiable copy of the Acme corpus."""
    dest = tmp_path / "acme"
    shutil.copytree(ACME, dest)
    return dest


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


# -- the LLM backend against a litellm custom provider (compiler/extract/fake_provider.py) ------
@pytest.fixture
def fake():  # type: ignore[no-untyped-def]
    from compiler.extract.fake_provider import FakeProvider, register

    provider = FakeProvider()
    register(provider)
    return provider


def llm(**kw: object):  # type: ignore[no-untyped-def]
    """Settings of the LLM backend against ``fake``."""
    from compiler.settings import FolioSettings

    base = {"backend": "llm", "llm_model": "folio-fake/extractor", "llm_retries": 1}
    return FolioSettings(**{**base, **kw})


# -- Prefect ------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One Prefect test server for the whole session: starting one takes ~15 s."""
    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_HOME"] = str(home)
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=60):
        yield


@pytest.fixture(scope="session")
def postgres():  # type: ignore[no-untyped-def]
    """One PostgreSQL 15 cluster for the session (tests/prefect_server.py); each user of it
    creates its own database."""
    from prefect_server import Postgres

    pg = Postgres().start()
    yield pg
    pg.stop()


# -- real brokers (see tests/brokers.py) ---------------------------------------------------------

@pytest.fixture(scope="session")
def tansu():
    from brokers import Broker

    broker = Broker("tansu").start()
    yield broker
    broker.stop()


@pytest.fixture
def noida(tmp_path: Path):
    from brokers import Broker

    broker = Broker("noida", data_dir=tmp_path / "noida-data").start()
    yield broker
    broker.stop()


# -- real S3 APIs (tests/s3.py): SeaweedFS for the store and pipelines, moto for faults ----------
@pytest.fixture(scope="session")
def s3_credentials():  # type: ignore[no-untyped-def]
    from s3 import set_credentials

    old = set_credentials()
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def seaweed(s3_credentials, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One SeaweedFS (``weed mini``) for the whole session: tests use their own buckets."""
    from s3 import SeaweedServer

    server = SeaweedServer(tmp_path_factory.mktemp("seaweedfs") / "data").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def moto(s3_credentials):  # type: ignore[no-untyped-def]
    from s3 import MotoServer

    server = MotoServer().start()
    yield server
    server.stop()


@pytest.fixture
def s3env(seaweed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Every store URL in the test goes to SeaweedFS; each test has its own cache folder."""
    monkeypatch.setenv("FOLIO_S3_ENDPOINT_URL", seaweed.url)
    monkeypatch.setenv("FOLIO_CACHE_DIR", str(tmp_path / "cache"))
    return seaweed
