"""Pipecat's ElevenLabs services (`pipecat-ai`, pinned in requirements.txt) against the platform, as a
voice agent uses them: the only settings changed are the service's own base URL (`base_url=` for
the HTTP service, `url=` for the WebSocket one) and the API key. A pipeline with no transport,
`Pipeline([errors, tts, collector])`, speaks the parameters' utterances (TTSSpeakFrame each, then
EndFrame); the collector records what a transport would get: audio bytes per context, the sample
rate of the frames, TTSStartedFrame/TTSStoppedFrame, the word frames (TTSTextFrame, with their
presentation times) and every ErrorFrame; for the WebSocket service also how many times it connected
and the close frame the gateway sent. Parameters: {"service": "http" | "websocket", "voice",
"utterances": [...], "interrupt": <text> (optional: spoken whole first, then again and interrupted as
soon as some of its audio has arrived, before the utterances), "idle_seconds": <n> (optional: the
pipeline idles this long after the first utterance has been spoken)}; the model is the service's
default. Prints one step, "pipeline", in sdk_steps' shape; the jest test decides."""

import asyncio
import os
import typing

import aiohttp
from pipecat.frames.frames import (
    EndFrame,
    ErrorFrame,
    Frame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    TTSTextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.elevenlabs.tts import ElevenLabsHttpTTSService, ElevenLabsTTSService

from sdk_steps import params, run

SAMPLE_RATE = 24000


class Collector(FrameProcessor):
    """Records the frames that reach it (downstream after the TTS, upstream before it) and passes them on."""

    def __init__(self, record: typing.Dict[str, typing.Any]) -> None:
        super().__init__()
        self.record = record
        # Set whenever a frame is recorded, so that the driver can await what it is waiting for.
        self.changed = asyncio.Event()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        r = self.record
        if isinstance(frame, ErrorFrame):
            r["errors"].append(str(frame.error))
        elif isinstance(frame, TTSStartedFrame):
            r["events"].append({"started": frame.context_id})
        elif isinstance(frame, TTSStoppedFrame):
            r["events"].append({"stopped": frame.context_id})
        elif isinstance(frame, TTSAudioRawFrame):
            contexts = r["audio"]
            if not contexts or contexts[-1]["context_id"] != frame.context_id:
                contexts.append({"context_id": frame.context_id, "bytes": 0, "frames": 0})
            contexts[-1]["bytes"] += len(frame.audio)
            contexts[-1]["frames"] += 1
            r["sample_rates"].append(frame.sample_rate)
            r["num_channels"].append(frame.num_channels)
        elif isinstance(frame, TTSTextFrame):
            r["words"].append({"text": frame.text, "pts_s": frame.pts / 1e9 if frame.pts else None, "context_id": getattr(frame, "context_id", None)})
        self.changed.set()
        await self.push_frame(frame, direction)

    async def until(self, condition: typing.Callable[[typing.Dict[str, typing.Any]], bool]) -> None:
        """Returns once `condition(record)` holds, checked after every recorded frame."""
        while not condition(self.record):
            self.changed.clear()
            await self.changed.wait()


def stopped(count: int) -> typing.Callable[[typing.Dict[str, typing.Any]], bool]:
    return lambda r: sum(1 for e in r["events"] if "stopped" in e) >= count


def audio_of_context(index: int) -> typing.Callable[[typing.Dict[str, typing.Any]], bool]:
    return lambda r: len(r["audio"]) > index and r["audio"][index]["bytes"] > 0


async def drive(task: PipelineTask, turn: Collector, out: Collector, p: typing.Dict[str, typing.Any]) -> None:
    """Queues the parameters' utterances as an agent would: all at once, or with an interruption or an idle pause first."""
    utterances = list(p["utterances"])
    if p.get("interrupt"):
        # The same text spoken whole (the measure of it uninterrupted), then again, interrupted the way
        # Pipecat's user-turn handling does once the user speaks: an InterruptionFrame broadcast from
        # the processor before the TTS (here the upstream collector) while its audio arrives.
        await task.queue_frame(TTSSpeakFrame(p["interrupt"]))
        await out.until(stopped(1))
        await task.queue_frame(TTSSpeakFrame(p["interrupt"]))
        await out.until(audio_of_context(1))
        await turn.broadcast_interruption()
    elif p.get("idle_seconds"):
        await task.queue_frame(TTSSpeakFrame(utterances.pop(0)))
        await out.until(stopped(1))
        # The behaviour under test is idle time itself: the service's keep-alives hold the socket open.
        await asyncio.sleep(p["idle_seconds"])
    await task.queue_frames([*(TTSSpeakFrame(text) for text in utterances), EndFrame()])


async def speak(p: typing.Dict[str, typing.Any]) -> typing.Dict[str, typing.Any]:
    record: typing.Dict[str, typing.Any] = {"errors": [], "events": [], "audio": [], "sample_rates": [], "num_channels": [], "words": [], "connections": 0, "close": None}
    api_key = os.environ["ELEVENLABS_API_KEY"]
    base_url = os.environ["ELEVENLABS_BASE_URL"]
    # The WebSocket service's sockets, one per connection it opened.
    sockets: typing.List[typing.Any] = []
    async with aiohttp.ClientSession() as session:
        if p["service"] == "http":
            tts: typing.Any = ElevenLabsHttpTTSService(
                api_key=api_key,
                aiohttp_session=session,
                base_url=base_url,
                sample_rate=SAMPLE_RATE,
                settings=ElevenLabsHttpTTSService.Settings(voice=p["voice"]),
            )
        else:
            tts = ElevenLabsTTSService(
                api_key=api_key,
                url=base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1),
                sample_rate=SAMPLE_RATE,
                settings=ElevenLabsTTSService.Settings(voice=p["voice"]),
            )

            @tts.event_handler("on_connected")
            async def on_connected(service: typing.Any, *_: typing.Any) -> None:
                record["connections"] += 1
                sockets.append(service._websocket)

        turn, out = Collector(record), Collector(record)
        task = PipelineTask(
            Pipeline([turn, tts, out]),
            params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE),
        )

        @task.event_handler("on_pipeline_error")
        async def on_error(_task: typing.Any, frame: ErrorFrame) -> None:
            record["errors"].append(f"pipeline: {frame.error}")

        runner = asyncio.ensure_future(PipelineRunner(handle_sigint=False).run(task))
        await asyncio.wait_for(asyncio.gather(runner, drive(task, turn, out, p)), timeout=120)
        if p["service"] != "http" and sockets:
            # The close frame the gateway sent on the last socket, and whether it closed first (after close_socket).
            protocol = sockets[-1].protocol
            received = protocol.close_rcvd
            record["close"] = {
                "code": received.code if received else None,
                "reason": received.reason if received else None,
                "gateway_first": protocol.close_rcvd_then_sent,
            }
    return record


p = params()
run([("pipeline", lambda: asyncio.run(speak(p)))])
