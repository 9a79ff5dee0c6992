# Moves a recording's median pitch to a new value and its formants by a ratio, keeping its length
# and intonation: Praat's "Change gender" (PSOLA for the pitch, resampling for the formants).
# Run as: praat --run change-voice.praat <in.wav> <out.wav> <formant ratio> <new pitch median Hz>
form Change voice
  sentence infile in.wav
  sentence outfile out.wav
  positive formant_ratio 1.0
  positive new_pitch_median 100
endform
sound = Read from file: infile$
# 75-600 Hz: the pitch search range of the analysis (a deep man to a child).
changed = Change gender: 75, 600, formant_ratio, new_pitch_median, 1.0, 1.0
Save as WAV file: outfile$
