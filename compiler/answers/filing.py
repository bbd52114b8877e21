"""Filing answers into a compiled wiki between compiles: the answer pages, ``index.md``,
``log.md``, their bundles and the index root are brought up to date in one transaction of the
state, under the compile lock, exactly as the next compile would (compiler/answer_pages.py)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

from .. import __version__
from ..build import STATE_DIR, CompileError, _locked
from ..canonical import sha256_hex
from ..models import SCHEMA_VERSION
from ..render import assemble_index, render_log
from ..settings import FolioSettings
from ..staging import Generation, apply_committed, generation_lock, recover
from ..state import State
from ..answer_pages import update_pages


def refresh_pages(wiki: Path, settings: FolioSettings, today: str | None = None
                  ) -> tuple[list[str], list[str]]:
    """Render the filed answers' pages now; returns (pages written, pages removed)."""
    from ..provenance import ledger
    from ..provenance.attest import signer_from_settings
    from ..provenance.index_root import bucket_of
    from ..provenance.root_update import update_root
    from ..provenance.signers import SigningError
    from ..provenance.statement import BuildContext
    from ..views import stored_policy

    today = today or datetime.now(UTC).date().isoformat()
    with _locked(wiki / STATE_DIR):
        recover(wiki)  # a compile killed between its commit and its apply
        st = State(wiki / STATE_DIR / "state.db")
        gen = Generation(wiki)
        st.begin()
        committed = False
        try:
            try:
                signer = signer_from_settings(settings)
            except SigningError as exc:
                raise CompileError(f"cannot sign the answer pages: {exc}") from exc
            now = datetime.now(UTC)
            build = BuildContext(
                compiler_version=__version__, schema_version=SCHEMA_VERSION,
                backend=json.loads(st.meta("backend") or "{}"),
                policy_digest=stored_policy(st).digest, builder_id=settings.builder_id,
                invocation_id=str(uuid.uuid4()), started_on=now, finished_on=now)
            written, removed, signed, index_changed = update_pages(
                st, wiki, gen, signer, build, resign_all=False)
            if written or removed:
                aggregates: dict[str, str] = {}
                if index_changed or removed:
                    index = assemble_index(st.index_lines()).encode("utf-8")
                    gen.write("index.md", index)
                    aggregates["index.md"] = sha256_hex(index)
                    st.set_meta("index_sha256", aggregates["index.md"])
                st.append_log(today, "answer", f"{len(written)} answer pages written, "
                              f"{len(removed)} removed",
                              "\n".join([f"- filed [[{p}]]" for p in written]
                                        + [f"- removed `{p}` (no longer filed)"
                                           for p in removed]))
                log = render_log(st.log_entries()).encode("utf-8")
                gen.write("log.md", log)
                aggregates["log.md"] = sha256_hex(log)
                if signer is not None:
                    ledger.put_bundles(st, ((e, bucket_of(e), d) for e, d in signed.items()))
                    ledger.drop_pages(st, removed)
                    update_root(st, gen, signer, build, st.page_count(),
                                {bucket_of(e) for e in [*signed, *removed]}, aggregates,
                                rebuild=False)
            # one generation, as a compile commits it (compiler/staging.py)
            with generation_lock(wiki, exclusive=True):
                gen.journal(st.db)
                st.commit()
                committed = True
                apply_committed(wiki, st.db)
        except BaseException:
            if not committed:
                st.rollback()
                gen.discard()
            raise
        finally:
            st.close()
    return written, removed
