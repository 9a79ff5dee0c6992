"""eSpeak NG's IPA for clause after clause, from one long-lived process.

The neural model takes IPA phonemes, which `espeak-ng -q --ipa` prints. Starting that program for
every clause cost the synthesis worker's event loop 10-15 ms each (a fork of a process holding the
model), and the listener the same again in the first piece's wait. This script loads the same
library once and answers each request with `espeak_TextToPhonemes` in IPA mode, the call Piper's
own phonemizer makes and whose output is the command line's for the same clause.

Requests, one per line on stdin (tab-separated, the text with no tab or newline):
  <id> TAB <voice> TAB <text>
Answers, one per line on stdout, in the order asked:
  <id> TAB ok TAB <ipa>      or      <id> TAB error TAB <message>
"""
import ctypes
import sys

from espeak_events import set_voice

AUDIO_OUTPUT_SYNCHRONOUS = 2
CHARS_UTF8 = 0x1
IPA = 0x02


def main():
    lib = ctypes.CDLL('libespeak-ng.so.1')
    lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
    lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
    if lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, 0) <= 0:
        sys.exit('espeak_Initialize failed')
    current = None
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        fields = line.rstrip(b'\n').split(b'\t', 2)
        if len(fields) != 3:
            continue
        ident, voice, text = fields
        if voice != current:
            if not set_voice(lib, voice.decode()):
                out.write(ident + b'\terror\tunknown voice ' + voice + b'\n')
                out.flush()
                current = None
                continue
            current = voice
        # The library moves the pointer clause by clause and sets it to NULL at the end of the text.
        buffer = ctypes.create_string_buffer(text)
        pointer = ctypes.c_void_p(ctypes.addressof(buffer))
        clauses = []
        while pointer.value:
            phonemes = lib.espeak_TextToPhonemes(ctypes.byref(pointer), CHARS_UTF8, IPA)
            if phonemes:
                clauses.append(phonemes)
        out.write(ident + b'\tok\t' + b' '.join(clauses).replace(b'\n', b' ') + b'\n')
        out.flush()


if __name__ == '__main__':
    main()
