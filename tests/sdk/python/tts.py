"""text_to_speech: convert, stream, convert_with_timestamps, stream_with_timestamps, convert_realtime.
Parameters: {"voice_id", "text", "formats": [output_format, ...]}"""

from sdk_steps import audio, client, params, run, tls_client

p = params()
el = client()
voice, text = p["voice_id"], p["text"]


def realtime():
    def words():
        for word in text.split(" "):
            yield word + " "

    return audio(tls_client().text_to_speech.convert_realtime(voice, text=words(), output_format="pcm_16000"))


def with_timestamps(chunks):
    return [chunk for chunk in chunks]


run(
    [
        ("convert", lambda: audio(el.text_to_speech.convert(voice, text=text))),
        ("stream", lambda: audio(el.text_to_speech.stream(voice, text=text, output_format="pcm_16000"))),
        *[(f"convert_{f}", (lambda f=f: audio(el.text_to_speech.convert(voice, text=text, output_format=f)))) for f in p.get("formats", [])],
        ("convert_with_timestamps", lambda: el.text_to_speech.convert_with_timestamps(voice, text=text, output_format="pcm_16000")),
        ("stream_with_timestamps", lambda: with_timestamps(el.text_to_speech.stream_with_timestamps(voice, text=text, output_format="pcm_16000"))),
        ("convert_realtime", realtime),
    ]
)
