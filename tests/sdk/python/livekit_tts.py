"""LiveKit Agents' ElevenLabs plugin (`livekit-plugins-elevenlabs`, pinned in requirements.txt) against
the platform, as an agent uses it: `TTS(base_url=<gateway>/v1, api_key=<key>, voice_id, encoding)` (its default model) and nothing else changed, its HTTP session from `livekit.agents.utils.http_context`.
Steps: `synthesize()` (HTTP) and, when "websocket" is true, two `stream()`s one after the other on
the same TTS object (the second reuses the socket as a new context), each with the parameters'
sentences pushed, `end_input()`, and every frame read. Each reports the PCM bytes the plugin
decoded, the sample rate it reports and its frames carry, and the word timings (timed transcripts)
of the frames. Parameters: {"voice", "encoding" (absent: the plugin's default, mp3_22050_32),
"text", "sentences": [...], "websocket": bool, "interrupt": <text> (instead of synthesize(): a
stream of it closed once some audio has arrived, then a stream of the sentences)}. The jest test decides."""

import asyncio
import os
import typing

from livekit.agents import utils
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT
from livekit.plugins import elevenlabs

from sdk_steps import params, run

p = params()


def new_tts() -> elevenlabs.TTS:
    options: typing.Dict[str, typing.Any] = {"encoding": p["encoding"]} if p.get("encoding") else {}
    return elevenlabs.TTS(
        base_url=os.environ["ELEVENLABS_BASE_URL"] + "/v1",
        api_key=os.environ["ELEVENLABS_API_KEY"],
        voice_id=p["voice"],
        **options,
    )


def summary(tts: elevenlabs.TTS, events: typing.List[typing.Any]) -> typing.Dict[str, typing.Any]:
    """The frames as a transport would play them: PCM bytes, their rates, the word timings they carry."""
    words = []
    for ev in events:
        for w in ev.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []):
            words.append({"text": str(w), "start": w.start_time, "end": w.end_time})
    return {
        "reported_sample_rate": tts.sample_rate,
        "frame_sample_rates": sorted({ev.frame.sample_rate for ev in events}),
        "channels": sorted({ev.frame.num_channels for ev in events}),
        "pcm_bytes": sum(ev.frame.data.nbytes for ev in events),
        "frames": len(events),
        "finals": sum(1 for ev in events if ev.is_final),
        "words": words,
    }


async def synthesize() -> typing.Dict[str, typing.Any]:
    async with utils.http_context.open():
        tts = new_tts()
        try:
            events = [ev async for ev in tts.synthesize(p["text"])]
            return summary(tts, events)
        finally:
            await tts.aclose()


def stream_summary(tts: elevenlabs.TTS, stream: typing.Any, events: typing.List[typing.Any]) -> typing.Dict[str, typing.Any]:
    # Whether the plugin took its open socket for this stream (it records it on the stream).
    return {**summary(tts, events), "connection_reused": getattr(stream, "_connection_reused", None)}


async def speak_sentences(tts: elevenlabs.TTS) -> typing.Dict[str, typing.Any]:
    """A stream of the parameters' sentences, its input ended and every frame read."""
    stream = tts.stream()
    for sentence in p["sentences"]:
        stream.push_text(sentence + " ")
    stream.end_input()
    events = [ev async for ev in stream]
    await stream.aclose()
    return stream_summary(tts, stream, events)


async def two_streams() -> typing.List[typing.Dict[str, typing.Any]]:
    """Two streams one after the other on one TTS: the plugin keeps its socket and opens a second context."""
    async with utils.http_context.open():
        tts = new_tts()
        try:
            return [await speak_sentences(tts) for _ in range(2)]
        finally:
            await tts.aclose()


async def interrupted_then_whole() -> typing.Dict[str, typing.Any]:
    """An agent's interruption: a stream of the "interrupt" text closed (`aclose()`) as soon as some of
    its audio has arrived, its input never ended; then a new stream of the sentences on the same TTS."""
    async with utils.http_context.open():
        tts = new_tts()
        try:
            stream = tts.stream()
            stream.push_text(p["interrupt"] + " ")
            events = []
            async for ev in stream:
                events.append(ev)
                if ev.frame.data.nbytes > 0:
                    break
            await stream.aclose()
            interrupted = stream_summary(tts, stream, events)
            return {"interrupted": interrupted, "next": await speak_sentences(tts)}
        finally:
            await tts.aclose()


steps: typing.List[typing.Tuple[str, typing.Callable[[], typing.Any]]] = []
if p.get("interrupt"):
    steps.append(("interrupted", lambda: asyncio.run(asyncio.wait_for(interrupted_then_whole(), timeout=120))))
else:
    steps.append(("synthesize", lambda: asyncio.run(synthesize())))
if p.get("websocket"):
    steps.append(("streams", lambda: asyncio.run(asyncio.wait_for(two_streams(), timeout=120))))
run(steps)
