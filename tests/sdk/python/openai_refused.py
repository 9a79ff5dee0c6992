"""One `audio.speech.create` of OpenAI's Python SDK (`openai`, pinned in requirements.txt) with
max_retries=0, against a platform set up to refuse it (a plan's concurrency taken, no synthesis
worker): what the SDK raised, its status, OpenAI-shaped body and the response's Retry-After.
Parameters: {"input", "voice", "model"}. The jest test decides."""

import os
import typing

import openai

from sdk_steps import params, run

p = params()
oa = openai.OpenAI(api_key=os.environ["ELEVENLABS_API_KEY"], base_url=os.environ["ELEVENLABS_BASE_URL"] + "/v1", max_retries=0, timeout=60)


def refused() -> typing.Dict[str, typing.Any]:
    try:
        oa.audio.speech.create(model=p["model"], voice=p["voice"], input=p["input"], response_format="pcm")
    except openai.APIStatusError as err:
        return {
            "error": type(err).__name__,
            "is_api_status_error": True,
            "status_code": err.status_code,
            "body": err.body,
            "retry_after": err.response.headers.get("retry-after"),
        }
    return {"error": None}


run([("create", refused)])
