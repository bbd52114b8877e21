"""A store on S3 or an S3-compatible service (MinIO, Ceph RGW, SeaweedFS) through boto3.

Credentials come from boto3's normal chain (env, profile, instance/pod role); nothing here
reads, prints or stores them. Transient errors (5xx, throttling, dropped connections) are
retried by botocore's ``standard`` retry mode with backoff; only what is still failing after
``s3_max_attempts`` becomes a :class:`StoreError`.

HEAD.json is replaced with conditional writes (``If-None-Match: *``, ``If-Match``). A server
that ignores those headers would silently let two publishers overwrite each other, so before
its first conditional write a store checks that the server honours both, on a probe object of
its own (:data:`PROBE_KEY`), and refuses to publish when it does not.
"""

from __future__ import annotations

from collections.abc import Iterator

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from ..settings import FolioSettings
from .base import LostUpdate, NotFound, StoreError, Versioned

_MISSING = {"NoSuchKey", "404", "NotFound"}
# answers of a server that does not implement a conditional header at all
_UNSUPPORTED = {"NotImplemented", "501"}
#: written (and rewritten) by the conditional-write check; never read by anything else
PROBE_KEY = "probe/conditional-writes"
_PROBE_BODY = (b'{"what": "folio checks here that this S3 server honours If-None-Match and '
               b'If-Match on PutObject before it replaces HEAD.json conditionally"}\n')
# an ETag no object has (an MD5 of nothing the probe writes)
_NO_SUCH_ETAG = '"00000000000000000000000000000000"'
# 412 when the condition failed; 409 when S3 saw two conditional writes race on the same key
_CONFLICT = {"PreconditionFailed", "412", "ConditionalRequestConflict", "409"}


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class S3Store:
    def __init__(self, bucket: str, prefix: str, settings: FolioSettings) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.url = f"s3://{bucket}/{self.prefix}".rstrip("/")
        style = settings.s3_addressing_style
        if style == "auto" and settings.s3_endpoint_url:
            style = "path"  # MinIO, Ceph, SeaweedFS and moto serve path-style by default
        config = Config(
            retries={"mode": "standard", "total_max_attempts": settings.s3_max_attempts},
            connect_timeout=settings.s3_timeout_s, read_timeout=settings.s3_timeout_s,
            s3={"addressing_style": style},
            max_pool_connections=max(10, settings.s3_concurrency),
        )
        self.endpoint = settings.s3_endpoint_url or "AWS S3"
        self.client = boto3.session.Session().client(
            "s3", endpoint_url=settings.s3_endpoint_url, region_name=settings.s3_region,
            config=config)
        self._conditions_checked = False

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _fail(self, op: str, key: str, exc: Exception) -> StoreError:
        detail = _code(exc) if isinstance(exc, ClientError) else type(exc).__name__
        # str(exc) of botocore errors names the operation and endpoint, never credentials
        return StoreError(f"{self.url}/{key}: {op} failed ({detail}): {exc}")

    def get(self, key: str) -> bytes:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()
        except ClientError as exc:
            if _code(exc) in _MISSING:
                raise NotFound(f"{self.url}/{key}: no such object") from None
            raise self._fail("get", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("get", key, exc) from exc

    def put(self, key: str, data: bytes) -> None:
        try:
            self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)
        except (ClientError, BotoCoreError) as exc:
            raise self._fail("put", key, exc) from exc

    def exists(self, key: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._key(key))
            return True
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return False
            raise self._fail("head", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("head", key, exc) from exc

    def list(self, prefix: str) -> Iterator[str]:
        full = self._key(prefix)
        strip = len(self.prefix) + 1 if self.prefix else 0
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=full)
            for page in pages:
                for obj in page.get("Contents", []):
                    yield obj["Key"][strip:]
        except (ClientError, BotoCoreError) as exc:
            raise self._fail("list", prefix, exc) from exc

    def get_versioned(self, key: str) -> Versioned | None:
        try:
            resp = self.client.get_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise self._fail("get", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("get", key, exc) from exc
        return Versioned(resp["Body"].read(), resp["ETag"])

    def _probe_put(self, **cond: str) -> bool:
        """One conditional PUT of the probe: True if the server wrote it, False if it refused
        on the condition (412, or 409 for a race with another prober)."""
        try:
            self.client.put_object(Bucket=self.bucket, Key=self._key(PROBE_KEY),
                                   Body=_PROBE_BODY, **cond)
            return True
        except ClientError as exc:
            code = _code(exc)
            if code in _CONFLICT:
                return False
            header = "If-Match" if "IfMatch" in cond else "If-None-Match"
            if code in _UNSUPPORTED:
                raise StoreError(
                    f"{self.url}: the S3 server at {self.endpoint} does not implement "
                    f"conditional writes ({header}: {code}); publishing needs them to keep "
                    f"two publishers from overwriting each other's HEAD.json") from None
            raise self._fail(f"conditional-write check ({header})", PROBE_KEY, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("conditional-write check", PROBE_KEY, exc) from exc

    def check_conditional_writes(self) -> None:
        """Refuse a server that ignores ``If-None-Match: *`` or ``If-Match`` (AWS S3 honours
        both since 2024, MinIO, Ceph RGW and SeaweedFS too; older or partial implementations
        accept the PUT and drop the condition). Two or three small PUTs of :data:`PROBE_KEY`,
        once per store object; nothing is deleted, so only PutObject is needed."""
        if self._conditions_checked:
            return
        ignored = []
        # absent or not, after one create-if-absent the object exists: a second must fail
        if self._probe_put(IfNoneMatch="*") and self._probe_put(IfNoneMatch="*"):
            ignored.append("If-None-Match: *")
        if self._probe_put(IfMatch=_NO_SUCH_ETAG):
            ignored.append("If-Match")
        if ignored:
            raise StoreError(
                f"{self.url}: the S3 server at {self.endpoint} ignores {' and '.join(ignored)} "
                f"on PutObject (a PUT of {self.url}/{PROBE_KEY} that had to fail its condition "
                f"succeeded); publishing needs conditional writes to keep two publishers from "
                f"overwriting each other's HEAD.json. Use a server that honours them "
                f"(docs/central-index.md lists those tested)")
        self._conditions_checked = True

    def put_if(self, key: str, data: bytes, expected_etag: str | None) -> str:
        self.check_conditional_writes()
        # S3 conditional writes: If-None-Match: * creates only if absent, If-Match replaces
        # only the version read; both are atomic on the service side
        cond = {"IfMatch": expected_etag} if expected_etag else {"IfNoneMatch": "*"}
        try:
            resp = self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data,
                                          **cond)
            return str(resp["ETag"])
        except ClientError as exc:
            code = _code(exc)
            if code in _CONFLICT or (expected_etag and code in _MISSING):
                # a retried request whose first attempt did land (the 5xx came after the
                # write) fails its own condition: that is our write, not someone else's
                now = self.get_versioned(key)
                if now is not None and now.data == data:
                    return now.etag
                raise LostUpdate(
                    f"{self.url}/{key} changed since it was read (expected "
                    f"{expected_etag or 'no object'}, found "
                    f"{now.etag if now else 'none'})") from None
            raise self._fail("conditional put", key, exc) from exc
        except BotoCoreError as exc:
            raise self._fail("conditional put", key, exc) from exc
