"""eSpeak NG with its event list: the audio of one run and the engine's own word and pause timing.

The espeak-ng command line prints no timing, but the library it is built on reports, through its
synthesis callback, a WORD event (character position and length in the input, sample position in
the audio) where each word starts and a PHONEME event for every phoneme, pauses included (names
starting with "_"). This script runs the same library with the same settings the command line
would use (it reads the command line's own -v -p -s -a -g flags and the same SSML input, so the
audio is byte for byte what `espeak-ng -m -b 1 ... --stdout` produces) and writes:

  one line of JSON: {"rate": 22050, "samples": N, "events": [["w", pos, len, sample] | ["p", sample], ...]}
  then N samples of 16-bit little-endian mono PCM.

`pos` is eSpeak's 1-based character (code point) position in the SSML input. Python's ctypes is
the foreign function interface Debian ships with python3; no other package is needed.
"""
import ctypes
import sys

AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_PHONEME_EVENTS = 0x0001
CHARS_UTF8, SSML, PHONEMES, ENDPAUSE = 0x1, 0x10, 0x100, 0x1000
EVENT_LIST_TERMINATED, EVENT_WORD, EVENT_PHONEME = 0, 1, 7
PARAMETERS = {'-s': 1, '-a': 2, '-p': 3, '-g': 7}  # espeakRATE, espeakVOLUME, espeakPITCH, espeakWORDGAP


class Event(ctypes.Structure):
    _fields_ = [
        ('type', ctypes.c_int),
        ('unique_identifier', ctypes.c_uint),
        ('text_position', ctypes.c_int),
        ('length', ctypes.c_int),
        ('audio_position', ctypes.c_int),
        ('sample', ctypes.c_int),
        ('user_data', ctypes.c_void_p),
        ('id', ctypes.c_char * 8),
    ]


class VoiceSpec(ctypes.Structure):
    # espeak_VOICE (speak_lib.h): a voice asked for by its properties.
    _fields_ = [
        ('name', ctypes.c_char_p),
        ('languages', ctypes.c_char_p),
        ('identifier', ctypes.c_char_p),
        ('gender', ctypes.c_ubyte),
        ('age', ctypes.c_ubyte),
        ('variant', ctypes.c_ubyte),
        ('xx1', ctypes.c_ubyte),
        ('score', ctypes.c_int),
        ('spare', ctypes.c_void_p),
    ]


def set_voice(lib, voice):
    """As the espeak-ng command line sets -v: by voice name, else as a language (`en-gb+f2`), variant included."""
    if lib.espeak_SetVoiceByName(voice.encode()) == 0:
        return True
    spec = VoiceSpec(languages=voice.encode())
    return lib.espeak_SetVoiceByProperties(ctypes.byref(spec)) == 0


Callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(Event))


def main(argv):
    voice, parameters = None, {}
    for flag, value in zip(argv, argv[1:]):
        if flag == '-v':
            voice = value
        elif flag in PARAMETERS:
            parameters[PARAMETERS[flag]] = int(value)
    lib = ctypes.CDLL('libespeak-ng.so.1')
    audio = bytearray()
    events = []

    def on_synth(wav, count, event_list):
        if count > 0:
            audio.extend(ctypes.string_at(wav, count * 2))
        i = 0
        while event_list[i].type != EVENT_LIST_TERMINATED:
            e = event_list[i]
            if e.type == EVENT_WORD:
                events.append(['w', e.text_position, e.length, e.sample])
            elif e.type == EVENT_PHONEME and e.id.startswith(b'_'):
                events.append(['p', e.sample])
            i += 1
        return 0

    callback = Callback(on_synth)
    rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, INITIALIZE_PHONEME_EVENTS)
    if rate <= 0:
        sys.exit('espeak_Initialize failed')
    lib.espeak_SetSynthCallback(callback)
    if voice is not None and not set_voice(lib, voice):
        sys.exit('unknown voice %s' % voice)
    for parameter, value in parameters.items():
        lib.espeak_SetParameter(parameter, value, 0)
    text = sys.stdin.buffer.read()
    if lib.espeak_Synth(text, len(text) + 1, 0, 1, 0, CHARS_UTF8 | SSML | PHONEMES | ENDPAUSE, None, None) != 0:
        sys.exit('espeak_Synth failed')
    lib.espeak_Synchronize()
    # JSON by hand: the json module costs more to import than the rest of a short run.
    listed = ','.join('["w",%d,%d,%d]' % tuple(e[1:]) if e[0] == 'w' else '["p",%d]' % e[1] for e in events)
    sys.stdout.buffer.write(('{"rate":%d,"samples":%d,"events":[%s]}\n' % (rate, len(audio) // 2, listed)).encode())
    sys.stdout.buffer.write(bytes(audio[: len(audio) // 2 * 2]))


if __name__ == '__main__':
    main(sys.argv[1:])
