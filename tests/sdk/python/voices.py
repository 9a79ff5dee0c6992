"""voices: ivc.create (without labels, as the SDK sends it), get_all, get, settings (default, get,
update), samples.audio.get, update, delete (voices.search: voices_search.py).
Parameters: {"wav_path", "voice_id" (a clone made beforehand), "sample_id"}"""

from elevenlabs import VoiceSettings

from sdk_steps import audio, client, params, run

p = params()
el = client()
voice = p["voice_id"]


def create():
    with open(p["wav_path"], "rb") as wav:
        return el.voices.ivc.create(name="Python clone", files=[("reference.wav", wav.read(), "audio/wav")])


def create_then_delete():
    made = create()
    el.voices.delete(made.voice_id)
    return made


run(
    [
        ("ivc_create", create_then_delete),
        ("get_all", lambda: el.voices.get_all()),
        ("get", lambda: el.voices.get(voice)),
        ("settings_get_default", lambda: el.voices.settings.get_default()),
        ("settings_update", lambda: el.voices.settings.update(voice, request=VoiceSettings(stability=0.25, similarity_boost=0.8))),
        ("settings_get", lambda: el.voices.settings.get(voice)),
        ("samples_audio_get", lambda: audio(el.voices.samples.audio.get(voice, p["sample_id"]))),
        ("update", lambda: el.voices.update(voice, name="Renamed by Python")),
        ("get_after_update", lambda: el.voices.get(voice)),
        ("delete", lambda: el.voices.delete(voice)),
    ]
)
