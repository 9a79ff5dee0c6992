"""Pipecat's ElevenLabs services (`pipecat-ai`, pinned in requirements.txt) against the platform, as a
voice agent uses them: the only settings changed are the service's own base URL (`base_url=` for
the HTTP service, `url=` for the WebSocket one) and the API key. A pipeline with no transport,
`Pipeline([errors, tts, collector])`, speaks the parameters' utterances (TTSSpeakFrame each, then
EndFrame); the collector records what a transport would get: audio bytes per context, the sample
rate of the frames, TTSStartedFrame/TTSStoppedFrame, the word frames (TTSTextFrame, with their
presentation times) and every ErrorFrame. Parameters: {"service": "http" | "websocket", "voice",
"utterances": [...]}; the model is the service's default. Prints one step, "pipeline", in sdk_steps' shape; the jest test decides."""

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
        await self.push_frame(frame, direction)


async def speak(p: typing.Dict[str, typing.Any]) -> typing.Dict[str, typing.Any]:
    record: typing.Dict[str, typing.Any] = {"errors": [], "events": [], "audio": [], "sample_rates": [], "num_channels": [], "words": []}
    api_key = os.environ["ELEVENLABS_API_KEY"]
    base_url = os.environ["ELEVENLABS_BASE_URL"]
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
        task = PipelineTask(
            Pipeline([Collector(record), tts, Collector(record)]),
            params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE),
        )

        @task.event_handler("on_pipeline_error")
        async def on_error(_task: typing.Any, frame: ErrorFrame) -> None:
            record["errors"].append(f"pipeline: {frame.error}")

        await task.queue_frames([*(TTSSpeakFrame(text) for text in p["utterances"]), EndFrame()])
        await asyncio.wait_for(PipelineRunner(handle_sigint=False).run(task), timeout=120)
    return record


p = params()
run([("pipeline", lambda: asyncio.run(speak(p)))])
