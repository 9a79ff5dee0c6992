"""Decodes 16 kHz mono 16-bit PCM files with PocketSphinx's English model (shipped inside its PyPI
wheel: acoustic model, dictionary, generic trigram language model) and prints the hypotheses as a
JSON list, one per file, in argument order. Used by bench/quality/bench.mjs."""
import json
import sys

from pocketsphinx import Decoder

decoder = Decoder(samprate=16000, logfn="/dev/null")
hypotheses = []
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        audio = f.read()
    decoder.start_utt()
    decoder.process_raw(audio, full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    hypotheses.append(hyp.hypstr if hyp is not None else "")
print(json.dumps(hypotheses))
