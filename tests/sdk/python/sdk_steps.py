"""Runs calls of the official `elevenlabs` Python SDK against the platform and prints one JSON
object: for each named step either {"ok": true, "type": <class of the result>, "result": ...} or
{"ok": false, "error": <exception class>, "status_code": ..., "body": ...}. Each step runs even
when an earlier one failed, so one broken call does not hide the others. The jest tests in
tests/sdk/ assert on this output; nothing here decides whether a call is right."""

import base64
import hashlib
import json
import os
import sys
import traceback
import typing

from elevenlabs import ElevenLabs
from elevenlabs.core.api_error import ApiError


def client() -> ElevenLabs:
    return ElevenLabs(api_key=os.environ["ELEVENLABS_API_KEY"], base_url=os.environ["ELEVENLABS_BASE_URL"], timeout=60)


def tls_client() -> ElevenLabs:
    """The platform behind TLS: the SDK's WebSocket helper always connects with wss://."""
    return ElevenLabs(api_key=os.environ["ELEVENLABS_API_KEY"], base_url=os.environ["ELEVENLABS_TLS_BASE_URL"], timeout=60)


def params() -> typing.Dict[str, typing.Any]:
    return json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}


def audio(chunks: typing.Iterable[bytes]) -> typing.Dict[str, typing.Any]:
    """An SDK audio iterator as the bytes it yielded (base64), their count and SHA-256."""
    parts = list(chunks)
    data = b"".join(parts)
    return {"base64": base64.b64encode(data).decode("ascii"), "bytes": len(data), "chunks": len(parts), "sha256": hashlib.sha256(data).hexdigest()}


def plain(value: typing.Any) -> typing.Any:
    """SDK models (pydantic) as JSON, lists and dicts recursively."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def run(steps: typing.List[typing.Tuple[str, typing.Callable[[], typing.Any]]]) -> None:
    out: typing.Dict[str, typing.Any] = {}
    for name, step in steps:
        try:
            result = step()
            item_types = sorted({type(v).__name__ for v in result}) if isinstance(result, list) else None
            out[name] = {"ok": True, "type": type(result).__name__, "item_types": item_types, "result": plain(result)}
        except ApiError as err:
            out[name] = {"ok": False, "error": type(err).__name__, "status_code": err.status_code, "body": plain(err.body)}
        except Exception as err:  # noqa: BLE001 - any failure of the SDK is a finding to report
            out[name] = {"ok": False, "error": type(err).__name__, "message": str(err)[:2000], "trace": traceback.format_exc()[-4000:]}
    json.dump(out, sys.stdout)
