"""The central index store (docs/central-index.md) against a real S3 server: SeaweedFS
(``weed mini``, SigV4-checked) over HTTP, with a fault-injecting proxy in front of it for 500s
and killed publishes. moto's server appears only as a second implementation of the conditional
writes and as the server a proxy makes ignore them (which SeaweedFS's signature check would
refuse)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import boto3
import pytest
from typer.testing import CliRunner

from compiler.build import compile_wiki
from pipelines.folio_cli import app
from compiler.settings import FolioSettings
from compiler.store import LostUpdate, StoreError, open_store
from compiler.store.layout import HEAD_KEY, Head, Tree, blob_key, tree_key
from compiler.store.materialize import materialize
from compiler.store.publish import commit, publish_wiki, stage
from compiler.store.s3 import PROBE_KEY, S3Store
from conftest import ACME, TODAY, flat
from s3 import CREDENTIALS, FaultProxy, MotoServer, SeaweedServer

REPO = Path(__file__).resolve().parents[1]
QUESTION = "What is the return window for Enterprise customers?"
PAGE = "policy/return-policy.md"


def new_bucket(server: SeaweedServer | MotoServer) -> str:
    name = f"folio-{uuid.uuid4().hex[:12]}"
    _client(server).create_bucket(Bucket=name)
    return name


def _client(server: SeaweedServer | MotoServer):  # noqa: ANN202
    return boto3.client("s3", endpoint_url=server.url, region_name="us-east-1")


@pytest.fixture(scope="module")
def two_wikis(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The Acme wiki (A) and the same wiki after one record changed, compiled incrementally (B)."""
    base = tmp_path_factory.mktemp("two-wikis")
    src = base / "acme"
    shutil.copytree(ACME, src)
    a = base / "wiki-a"
    assert compile_wiki(src, a, today=TODAY).rejected == 0
    b = base / "wiki-b"
    shutil.copytree(a, b)
    doc = src / "handbook" / "returns-handling.md"
    doc.write_text(doc.read_text().replace("Compare the delivery date",
                                           "Always compare the delivery date"))
    report = compile_wiki(src, b, today=TODAY)
    assert report.records_extracted == 1 and report.rejected == 0
    return a, b


def _settings(**kw: object) -> FolioSettings:
    return FolioSettings(**kw)


def _head(store) -> Head:  # noqa: ANN001
    return Head.model_validate_json(store.get(HEAD_KEY))


def _local_digests(wiki: Path) -> dict[str, str]:
    """Expected tree: what publish must upload, computed here independently."""
    from compiler.provenance.verify import wiki_files

    files = wiki_files(wiki)
    files["dbom-root.json"] = wiki / "dbom-root.json"
    return {rel: hashlib.sha256(p.read_bytes()).hexdigest() for rel, p in files.items()}


def _run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, flat(res.output)


# -- publish and read back ------------------------------------------------------------------


def test_publish_then_verify_and_query_over_s3(s3env: SeaweedServer, acme_wiki: Path) -> None:
    url = f"s3://{new_bucket(s3env)}/sites/emea"
    code, text = _run("publish", "--wiki", str(acme_wiki), "--to", url, "-q")
    assert code == 0, text
    store = open_store(url)
    head = _head(store)
    assert head.generation == 1
    tree = Tree.model_validate_json(store.get(tree_key(head.tree)))
    expected = _local_digests(acme_wiki)
    assert {p: e.sha256 for p, e in tree.files.items() if p != ".folio/state.db"} == expected
    assert head.root_sha256 == expected["dbom-root.json"]
    # nothing private: the state snapshot is the only file under .folio/
    assert [p for p in tree.files if p.startswith(".")] == [".folio/state.db"]
    keys = set(store.list(""))
    assert not any("llm_cache" in k or "leaves" in k or k.endswith(".pem") for k in keys)

    code, text = _run("verify", "--wiki", url)
    assert code == 0, text
    assert "OK: 30 pages" in text
    code, remote = _run("query", QUESTION, "--wiki", url)
    assert code == 0, remote
    code, local = _run("query", QUESTION, "--wiki", str(acme_wiki))
    assert remote == local and "60 days" in remote
    code, text = _run("show", "policy/return-policy", "--wiki", url, "--raw")
    assert code == 0 and text == flat((acme_wiki / PAGE).read_text())
    code, text = _run("lint", "--wiki", url)
    assert "1 error," in text


def test_state_snapshot_is_consistent_and_standalone(s3env: SeaweedServer, acme_wiki: Path,
                                                     tmp_path: Path) -> None:
    import sqlite3

    url = f"s3://{new_bucket(s3env)}/x"
    publish_wiki(acme_wiki, open_store(url))
    wiki, _ = materialize(open_store(url))
    db = sqlite3.connect(f"file:{wiki / '.folio/state.db'}?mode=ro", uri=True)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def test_republish_uploads_only_changed_blobs(s3env: SeaweedServer,
                                              two_wikis: tuple[Path, Path]) -> None:
    a, b = two_wikis
    store = open_store(f"s3://{new_bucket(s3env)}/acme")
    first = publish_wiki(a, store)
    assert first.generation == 1 and first.uploaded == first.files - first.skipped
    again = publish_wiki(a, store)
    assert again.unchanged and again.uploaded == 0 and again.generation == 1
    second = publish_wiki(b, store)
    da, db = _local_digests(a), _local_digests(b)
    changed = {d for p, d in db.items() if d not in set(da.values())}
    state_changed = 1  # the compile state snapshot changes with any compile
    assert second.uploaded == len(changed) + state_changed
    assert 0 < second.uploaded < 15 < second.skipped
    assert second.generation == 2 and _head(store).previous_tree == first.tree
    # bytes: the changed files plus the state snapshot, which dominates (docs/central-index.md)
    tree = Tree.model_validate_json(store.get(tree_key(second.tree)))
    state = tree.files[".folio/state.db"].size
    assert second.bytes_uploaded == state + sum(
        (b / p).stat().st_size for p, d in db.items() if d in changed)


def test_reader_cache_downloads_only_changed_files(s3env: SeaweedServer,
                                                   two_wikis: tuple[Path, Path]) -> None:
    a, b = two_wikis
    store = open_store(f"s3://{new_bucket(s3env)}/acme")
    publish_wiki(a, store)
    wiki, first = materialize(store)
    assert first.downloaded == len(_local_digests(a)) + 1  # every file: the cache was empty
    (wiki / "stray.md").write_text("not published")
    publish_wiki(b, store)
    wiki2, second = materialize(store)
    assert wiki2 == wiki and second.generation == 2
    expected = _local_digests(b)
    assert second.downloaded == sum(1 for p, d in expected.items()
                                    if d != _local_digests(a).get(p)) + 1
    assert not (wiki / "stray.md").exists()
    assert _local_digests(wiki) == expected
    _, third = materialize(store)  # up to date: nothing fetched
    assert third.downloaded == 0


# -- integrity ------------------------------------------------------------------------------


def _tamper(s3env: SeaweedServer, url: str, wiki: Path) -> tuple[str, str, bytes]:
    bucket, prefix = url[5:].split("/", 1)
    digest = _local_digests(wiki)[PAGE]
    bad = (wiki / PAGE).read_bytes().replace(b"60 days", b"90 days")
    assert bad != (wiki / PAGE).read_bytes()
    return bucket, f"{prefix}/{blob_key(digest)}", bad


def test_tampered_blob_is_refused_naming_key_and_page(s3env: SeaweedServer,
                                                      acme_wiki: Path) -> None:
    url = f"s3://{new_bucket(s3env)}/acme"
    publish_wiki(acme_wiki, open_store(url))
    bucket, key, bad = _tamper(s3env, url, acme_wiki)
    _client(s3env).put_object(Bucket=bucket, Key=key, Body=bad)
    code, text = _run("verify", "--wiki", url)
    assert code == 1
    assert key in text and PAGE in text and "does not match its sha256" in text


def test_tampered_blob_with_rewritten_tree_fails_signature_check(s3env: SeaweedServer,
                                                                 acme_wiki: Path) -> None:
    """Someone with write access re-points the tree and HEAD at forged bytes: the digests
    agree, but the signed DBOM and index root do not."""
    url = f"s3://{new_bucket(s3env)}/acme"
    store = open_store(url)
    publish_wiki(acme_wiki, store)
    _, _, bad = _tamper(s3env, url, acme_wiki)
    head = _head(store)
    tree = Tree.model_validate_json(store.get(tree_key(head.tree)))
    files = dict(tree.files)
    forged_sha = hashlib.sha256(bad).hexdigest()
    files[PAGE] = files[PAGE].model_copy(update={"sha256": forged_sha, "size": len(bad)})
    forged = Tree(files=files)
    store.put(blob_key(forged_sha), bad)
    store.put(tree_key(forged.digest()), forged.to_bytes())
    store.put(HEAD_KEY, head.model_copy(update={"tree": forged.digest()}).to_bytes())
    code, text = _run("verify", "--wiki", url)
    assert code == 1, text
    assert PAGE in text and "FAIL" in text


# -- ordering and concurrency ----------------------------------------------------------------


def test_lost_update_is_refused(s3env: SeaweedServer, two_wikis: tuple[Path, Path]) -> None:
    a, b = two_wikis
    store = open_store(f"s3://{new_bucket(s3env)}/acme")
    first, second = stage(a, store), stage(b, store)  # both start from "nothing published"
    commit(store, first)
    with pytest.raises(LostUpdate, match="HEAD.json changed since it was read"):
        commit(store, second)
    assert _head(store).tree == first.head.tree  # the first publish is not overwritten
    # same base generation, later: refused the same way, then a rerun lands on top
    base = _head(store).generation
    s1, s2 = stage(b, store), stage(a, store)
    commit(store, s1)
    with pytest.raises(LostUpdate):
        commit(store, s2)
    assert _head(store).generation == base + 1
    code, text = _run("publish", "--wiki", str(a), "--to", store.url, "-q",
                      "--expect-generation", str(base))
    assert code == 4 and "refused" in text and "generation" in text


def test_lost_update_on_local_folder_store(tmp_path: Path,
                                           two_wikis: tuple[Path, Path]) -> None:
    a, b = two_wikis
    store = open_store(str(tmp_path / "central"))
    first, second = stage(a, store), stage(b, store)
    commit(store, first)
    with pytest.raises(LostUpdate):
        commit(store, second)
    assert _head(store).generation == 1


def _publish_proc(wiki: Path, url: str, endpoint: str, tmp: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, **CREDENTIALS, "FOLIO_S3_ENDPOINT_URL": endpoint,
           "FOLIO_S3_CONCURRENCY": "1", "FOLIO_S3_MAX_ATTEMPTS": "1",
           "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "pipelines.folio_cli", "publish", "--wiki",
                             str(wiki), "--to", url, "-q"], cwd=tmp, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_killed_publish_leaves_previous_head_and_rerun_completes(
        s3env: SeaweedServer, two_wikis: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_wikis
    url = f"s3://{new_bucket(s3env)}/acme"
    store = open_store(url)
    publish_wiki(a, store)
    gen1 = _head(store)
    with FaultProxy(s3env.port, hold_after_puts=3) as proxy:
        proc = _publish_proc(b, url, proxy.url, tmp_path)
        assert proxy.held.wait(60), proc.communicate()[0]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert proxy.puts == 3
    assert _head(store) == gen1  # a reader still gets generation 1, complete
    code, text = _run("verify", "--wiki", url)
    assert code == 0, text
    rerun = publish_wiki(b, store)
    da = set(_local_digests(a).values())
    missing = len({d for d in _local_digests(b).values() if d not in da}) + 1  # + state
    assert missing > 3
    assert rerun.generation == 2 and rerun.uploaded == missing - 3  # the 3 that landed stay
    clean = open_store(f"s3://{new_bucket(s3env)}/acme")
    publish_wiki(a, clean)
    publish_wiki(b, clean)
    assert _head(store).tree == _head(clean).tree
    code, text = _run("verify", "--wiki", url)
    assert code == 0, text


def test_killed_first_publish_leaves_no_head(s3env: SeaweedServer, acme_wiki: Path,
                                             tmp_path: Path) -> None:
    url = f"s3://{new_bucket(s3env)}/acme"
    store = open_store(url)
    with FaultProxy(s3env.port, hold_after_puts=20) as proxy:
        proc = _publish_proc(acme_wiki, url, proxy.url, tmp_path)
        assert proxy.held.wait(60), proc.communicate()[0]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert not store.exists(HEAD_KEY)
    code, text = _run("verify", "--wiki", url)
    assert code == 1 and "nothing published" in text
    rerun = publish_wiki(acme_wiki, store)
    assert rerun.skipped == 20 and rerun.uploaded == rerun.files - 20
    clean = open_store(f"s3://{new_bucket(s3env)}/acme")
    assert publish_wiki(acme_wiki, clean).tree == rerun.tree


# -- conditional writes of HEAD.json on each server -----------------------------------------

@pytest.fixture(params=["seaweedfs", "moto"])
def cond_server(request: pytest.FixtureRequest, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    server = request.getfixturevalue("seaweed" if request.param == "seaweedfs" else "moto")
    monkeypatch.setenv("FOLIO_S3_ENDPOINT_URL", server.url)
    monkeypatch.setenv("FOLIO_CACHE_DIR", str(tmp_path / "cache"))
    return server


def test_conditional_writes_of_head(cond_server) -> None:  # type: ignore[no-untyped-def]
    """The two conditions publish relies on, on the wire: create-if-absent and
    replace-if-unchanged, each refused once the object moved."""
    store = open_store(f"s3://{new_bucket(cond_server)}/acme")
    assert isinstance(store, S3Store)
    first = store.put_if(HEAD_KEY, b"generation 1", None)
    with pytest.raises(LostUpdate, match="expected no object"):
        store.put_if(HEAD_KEY, b"someone else's generation 1", None)
    second = store.put_if(HEAD_KEY, b"generation 2", first)
    assert second != first
    with pytest.raises(LostUpdate, match="changed since it was read"):
        store.put_if(HEAD_KEY, b"generation 2 from a stale read", first)
    assert store.get(HEAD_KEY) == b"generation 2"
    # the check ran once, before the first conditional write, and left only its probe
    assert sorted(store.list("")) == [HEAD_KEY, PROBE_KEY]


def test_racing_publishers_one_wins(cond_server) -> None:  # type: ignore[no-untyped-def]
    """Eight writers replace the same HEAD version at once: the server lets exactly one in."""
    url = f"s3://{new_bucket(cond_server)}/acme"
    base = open_store(url).put_if(HEAD_KEY, b"base", None)
    stores = [open_store(url) for _ in range(8)]
    for s in stores:  # each store checks the server once; not part of the race
        s.check_conditional_writes()
    start = threading.Barrier(len(stores))
    won: list[int] = []
    lost: list[int] = []

    def write(i: int) -> None:
        start.wait()
        try:
            stores[i].put_if(HEAD_KEY, f"writer {i}".encode(), base)
            won.append(i)
        except LostUpdate:
            lost.append(i)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(stores))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert len(won) == 1 and len(lost) == len(stores) - 1
    assert open_store(url).get(HEAD_KEY) == f"writer {won[0]}".encode()


@pytest.mark.parametrize("ignored", [("If-None-Match",), ("If-Match",),
                                     ("If-None-Match", "If-Match")])
def test_a_server_that_ignores_conditions_is_refused_before_head_moves(
        moto: MotoServer, acme_wiki: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ignored: tuple[str, ...]) -> None:
    """A proxy drops the condition headers, so the server accepts PUTs that had to fail: the
    store's check finds out and publish stops before it writes HEAD.json."""
    monkeypatch.setenv("FOLIO_CACHE_DIR", str(tmp_path / "cache"))
    url = f"s3://{new_bucket(moto)}/acme"
    with FaultProxy(moto.port, strip_headers=frozenset(ignored)) as proxy:
        settings = _settings(s3_endpoint_url=proxy.url)
        with pytest.raises(StoreError) as err:
            publish_wiki(acme_wiki, open_store(url, settings), settings)
    text = str(err.value)
    assert f"{url}: the S3 server at {proxy.url} ignores" in text
    for header in ignored:
        assert header in text
    for header in {"If-None-Match", "If-Match"} - set(ignored):
        assert f"ignores {header}" not in text and f"and {header}" not in text
    assert PROBE_KEY in text
    assert not open_store(url, _settings(s3_endpoint_url=moto.url)).exists(HEAD_KEY)


def test_a_server_without_conditional_writes_is_named(seaweed: SeaweedServer, acme_wiki: Path,
                                                      tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """501 NotImplemented for a conditional PUT (servers that predate them): a clear refusal."""
    monkeypatch.setenv("FOLIO_CACHE_DIR", str(tmp_path / "cache"))
    url = f"s3://{new_bucket(seaweed)}/acme"
    with FaultProxy(seaweed.port, reject_headers=frozenset({"If-Match"})) as proxy:
        settings = _settings(s3_endpoint_url=proxy.url, s3_max_attempts=1)
        with pytest.raises(StoreError, match=r"does not implement conditional writes "
                                             r"\(If-Match: NotImplemented\)"):
            publish_wiki(acme_wiki, open_store(url, settings), settings)
    assert not open_store(url, _settings(s3_endpoint_url=seaweed.url)).exists(HEAD_KEY)


# -- transient failures ----------------------------------------------------------------------


def test_transient_500s_are_retried(s3env: SeaweedServer, acme_wiki: Path) -> None:
    url = f"s3://{new_bucket(s3env)}/acme"
    # botocore's backoff doubles per retry (with jitter): two failures keep the test quick
    with FaultProxy(s3env.port, fail_first=2) as proxy:
        settings = _settings(s3_endpoint_url=proxy.url, s3_max_attempts=3)
        store = open_store(url, settings)
        report = publish_wiki(acme_wiki, store, settings)
        assert proxy.failed == 2 and report.generation == 1
        # reads retry the same way
        proxy.fail_first, proxy.failed = 2, 0
        wiki, synced = materialize(store, settings)
        assert proxy.failed == 2 and synced.generation == 1
    assert _local_digests(wiki) == _local_digests(acme_wiki)


def test_persistent_500s_fail_naming_the_key_and_keep_head(s3env: SeaweedServer,
                                                           acme_wiki: Path) -> None:
    from compiler.store import StoreError

    url = f"s3://{new_bucket(s3env)}/acme"
    with FaultProxy(s3env.port, fail_first=1000) as proxy:
        settings = _settings(s3_endpoint_url=proxy.url, s3_max_attempts=2)
        with pytest.raises(StoreError, match=r"s3://.*/acme/HEAD.json: get failed \(InternalError"):
            publish_wiki(acme_wiki, open_store(url, settings), settings)
        assert proxy.failed == 2  # one request, two attempts
    assert not open_store(url).exists(HEAD_KEY)


# -- folder store and answers ----------------------------------------------------------------


def test_local_folder_store_matches_s3(s3env: SeaweedServer, acme_wiki: Path,
                                       tmp_path: Path) -> None:
    url = f"s3://{new_bucket(s3env)}/acme"
    folder = tmp_path / "central"
    code, text = _run("publish", "--wiki", str(acme_wiki), "--to", str(folder), "-q")
    assert code == 0, text
    remote = publish_wiki(acme_wiki, open_store(url))
    assert _head(open_store(str(folder))).tree == remote.tree
    # the S3 store also holds the probe of its conditional-write check; a folder needs none
    assert sorted(open_store(str(folder)).list("")) == sorted(
        k for k in open_store(url).list("") if k != PROBE_KEY)
    code, via_s3 = _run("query", QUESTION, "--wiki", url)
    code2, via_folder = _run("query", QUESTION, "--wiki", f"file://{folder}")
    assert code == code2 == 0 and via_s3 == via_folder
    code, text = _run("verify", "--wiki", f"file://{folder}")
    assert code == 0, text


def test_attested_answer_is_audited_from_the_store(s3env: SeaweedServer, acme_wiki: Path,
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"s3://{new_bucket(s3env)}/acme"
    publish_wiki(acme_wiki, open_store(url))
    code, text = _run("query", QUESTION, "--wiki", url, "--attest")
    assert code == 0, text
    rid = text.split("answer record: ")[1].split()[0]
    assert f"--wiki {url}" in text
    assert open_store(url).exists(f"answers/{rid}.json")
    monkeypatch.setenv("FOLIO_CACHE_DIR", str(tmp_path / "other-reader"))
    code, text = _run("audit", rid, "--wiki", url)
    assert code == 0, text
    assert "signature OK" in text


def test_publish_refuses_a_folder_that_is_not_a_wiki(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, text = _run("publish", "--wiki", str(tmp_path / "empty"), "--to",
                      str(tmp_path / "central"))
    assert code == 1 and "not a compiled wiki" in text


def test_store_url_errors_are_clear() -> None:
    code, text = _run("verify", "--wiki", "gs://bucket/x")
    assert code == 1 and "unsupported store URL" in text
    code, text = _run("verify", "--wiki", "s3:///nobucket")
    assert code == 1 and "no bucket" in text


def test_interrupted_sync_is_not_trusted(s3env: SeaweedServer, two_wikis: tuple[Path, Path]) -> None:
    """A sync that stops half-way (here: a bad blob) leaves no marker, so the next one re-checks
    every file rather than taking the half-updated cache for generation 2."""
    from compiler.store import BlobCorrupt
    from compiler.store.materialize import MARKER, cache_folder

    a, b = two_wikis
    url = f"s3://{new_bucket(s3env)}/acme"
    store = open_store(url)
    publish_wiki(a, store)
    wiki, _ = materialize(store)
    publish_wiki(b, store)
    digest = _local_digests(b)["process/returns-handling.md"]
    good = store.get(blob_key(digest))
    store.put(blob_key(digest), good + b"tampered")
    with pytest.raises(BlobCorrupt, match="process/returns-handling.md"):
        materialize(store)
    assert not (cache_folder(store, FolioSettings()) / MARKER).exists()
    store.put(blob_key(digest), good)
    _, synced = materialize(store)
    assert synced.generation == 2 and _local_digests(wiki) == _local_digests(b)
