"""text_to_speech.convert and .stream in each output_format asked for.
Parameters: {"voice_id", "text", "formats": [output_format, ...]}"""

from sdk_steps import audio, client, params, run

p = params()
el = client()
voice, text = p["voice_id"], p["text"]

run(
    [
        step
        for f in p["formats"]
        for step in (
            (f"convert_{f}", (lambda f=f: audio(el.text_to_speech.convert(voice, text=text, output_format=f)))),
            (f"stream_{f}", (lambda f=f: audio(el.text_to_speech.stream(voice, text=text, output_format=f)))),
        )
    ]
)
