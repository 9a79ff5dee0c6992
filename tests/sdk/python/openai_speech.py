"""OpenAI's Python SDK (`openai`, pinned in requirements.txt) against the platform's
POST /v1/audio/speech, with base_url=<gateway>/v1 and the platform's API key, as an app written for
OpenAI would call it. Parameters: {"input", "voice", "model"}. Each step reports what the SDK
returned or raised (an APIStatusError as its class, status and body); the jest test decides."""

import base64
import os
import typing

import openai

from sdk_steps import audio, params, run

p = params()
base_url = os.environ["ELEVENLABS_BASE_URL"] + "/v1"
oa = openai.OpenAI(api_key=os.environ["ELEVENLABS_API_KEY"], base_url=base_url, max_retries=0, timeout=60)


def refused(call: typing.Callable[[], typing.Any]) -> typing.Dict[str, typing.Any]:
    """The SDK's error for a refused call: its class (NotFoundError, AuthenticationError, ...), status and body."""
    try:
        call()
    except openai.APIStatusError as err:
        return {"error": type(err).__name__, "status_code": err.status_code, "body": err.body}
    return {"error": None}


def create(**extra: typing.Any) -> typing.Dict[str, typing.Any]:
    return audio([oa.audio.speech.create(model=p["model"], voice=p["voice"], input=p["input"], **extra).content])


def streamed(**extra: typing.Any) -> typing.Dict[str, typing.Any]:
    with oa.audio.speech.with_streaming_response.create(model=p["model"], voice=p["voice"], input=p["input"], **extra) as res:
        return {**audio(res.iter_bytes()), "content_type": res.headers.get("content-type")}


def sse() -> typing.Dict[str, typing.Any]:
    """stream_format="sse": the events as the SDK's raw lines; their audio joined."""
    events = []
    with oa.audio.speech.with_streaming_response.create(
        model=p["model"], voice=p["voice"], input=p["input"], response_format="pcm", stream_format="sse"
    ) as res:
        for line in res.iter_lines():
            if line.startswith("data: "):
                events.append(__import__("json").loads(line[len("data: "):]))
    pcm = b"".join(base64.b64decode(e["audio"]) for e in events if e["type"] == "speech.audio.delta")
    return {"types": [e["type"] for e in events], "done": events[-1] if events else None, "pcm_bytes": len(pcm), "content_type": res.headers.get("content-type")}


bad_key = openai.OpenAI(api_key="not-a-key-of-this-platform", base_url=base_url, max_retries=0, timeout=60)

run(
    [
        ("mp3", lambda: create()),
        ("pcm_streamed", lambda: streamed(response_format="pcm", speed=1.0, instructions="Speak calmly.")),
        ("wav", lambda: create(response_format="wav")),
        ("sse", sse),
        ("unknown_voice", lambda: refused(lambda: oa.audio.speech.create(model=p["model"], voice="NoSuchVoice000000000", input=p["input"]))),
        ("aac", lambda: refused(lambda: oa.audio.speech.create(model=p["model"], voice=p["voice"], input=p["input"], response_format="aac"))),
        ("bad_key", lambda: refused(lambda: bad_key.audio.speech.create(model=p["model"], voice=p["voice"], input=p["input"]))),
    ]
)
