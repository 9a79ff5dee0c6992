"""An int8 variant of a Piper voice with ONNX Runtime's own quantisation tool (scripts/quantize-voice.mjs).

    python quantize.py <voice>.onnx <voice>.int8.onnx [--method static|dynamic]

dynamic: `quantize_dynamic`, weights of Conv and MatMul to unsigned int8 (ONNX Runtime's CPU build has
ConvInteger only for uint8 weights), activations quantised at run time. static: `quantize_static` in QDQ
form (int8 weights per channel, uint8 activations) calibrated on a few sentences phonemised with eSpeak
NG as the engine does it, every Conv but the decoder's first and last (quantising the one that writes
the waveform costs the most words). docs/decisions.md says which the platform ships and why.
"""

import argparse
import json
import subprocess
import unicodedata

import numpy as np
import onnx
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_dynamic,
    quantize_static,
)

# Piper's VITS export names the decoder's first and last convolution so (every Piper voice).
KEPT_FP32 = {"/dec/conv_pre/Conv", "/dec/conv_post/Conv"}

# Calibration text: none of the Harvard sentences bench/quality scores the model on.
CALIBRATION = [
    "A quick brown fox jumps over the lazy dog, twice before noon.",
    "Please call Stella and ask her to bring these things with her from the store.",
    "How much wood would a woodchuck chuck, if it could?",
    "Numbers like forty two and seven hundred are read aloud.",
    "The weather today is cloudy, with a chance of rain later in the evening!",
    "She sells sea shells by the sea shore.",
]


def phoneme_ids(text, config):
    """Piper's ids as libs/speech-engine/src/piper.ts makes them: BOS, each phoneme and a pad, EOS."""
    ipa = subprocess.run(
        ["espeak-ng", "-q", "--ipa", "-b", "1", "-v", config["espeak"]["voice"], "--", text],
        check=True, capture_output=True, text=True,
    ).stdout
    table = config["phoneme_id_map"]
    ids = list(table.get("^", [1]))
    for symbol in unicodedata.normalize("NFD", " ".join(ipa.split())):
        if symbol in table:
            ids += table[symbol] + table.get("_", [0])
    return ids + table.get("$", [2])


class Calibration(CalibrationDataReader):
    def __init__(self, config):
        inference = config["inference"]
        scales = [inference["noise_scale"], inference["length_scale"], inference["noise_w"]]
        self.feeds = iter(
            {
                "input": np.array([ids], dtype=np.int64),
                "input_lengths": np.array([len(ids)], dtype=np.int64),
                "scales": np.array(scales, dtype=np.float32),
            }
            for ids in (phoneme_ids(text, config) for text in CALIBRATION)
        )

    def get_next(self):
        return next(self.feeds, None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--method", choices=["dynamic", "static"], default="static")
    args = parser.parse_args()
    if args.method == "dynamic":
        quantize_dynamic(args.source, args.target, weight_type=QuantType.QUInt8, op_types_to_quantize=["Conv", "MatMul"])
    else:
        with open(f"{args.source}.json", encoding="utf-8") as f:
            config = json.load(f)
        graph = onnx.load(args.source).graph
        convs = [n.name for n in graph.node if n.op_type == "Conv" and n.name not in KEPT_FP32]
        quantize_static(
            args.source,
            args.target,
            Calibration(config),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["Conv"],
            nodes_to_quantize=convs,
        )


if __name__ == "__main__":
    main()
