import { continueEncoding, resolveOutputFormat, restampOggSerial } from '@platform/speech-engine';

describe('Ogg pages of a second encoding', () => {
  // The first two pages of an Opus stream from ffmpeg (OpusHead, OpusTags), serial 359ea477.
  const head = Buffer.from(
    '4f67675300020000000000000000359ea4770000000037d42c0b01134f707573486561640101380180bb0000000000',
    'hex',
  );
  const tags = Buffer.from(
    '4f67675300000000000000000000359ea47701000000d8f77893013e4f707573546167730d0000004c61766635392e32372e313030010000001d000000656e636f6465723d4c61766335392e33372e313030206c69626f707573',
    'hex',
  );

  it('get the serial given, with a valid checksum: pages of that serial come out unchanged, whatever the chunking', () => {
    const restamp = restampOggSerial(head.subarray(14, 18));
    const stream = Buffer.concat([head, tags]);
    const out = [restamp(stream.subarray(0, 10)), restamp(stream.subarray(10, 60)), restamp(stream.subarray(60))];
    expect(out[0]!.length).toBe(0);
    expect(out[1]!.equals(head)).toBe(true);
    expect(Buffer.concat(out).equals(stream)).toBe(true);
  });

  it('another serial is replaced and the checksum recomputed', () => {
    const other = Buffer.from(head);
    other.writeUInt32LE(0x12345678, 14);
    other.writeUInt32LE(0xdeadbeef, 22);
    expect(restampOggSerial(head.subarray(14, 18))(other).equals(head)).toBe(true);
  });

  it('what is not Ogg passes unchanged', () => {
    const junk = Buffer.from('not an ogg page at all, just bytes');
    expect(restampOggSerial(head.subarray(14, 18))(junk).equals(junk)).toBe(true);
  });
});

describe('a codec continuing a resumed encoding', () => {
  it('is Ogg Opus restamped with the sent serial, and every other codec as is', () => {
    const head = Buffer.from(
      '4f67675300020000000000000000359ea4770000000037d42c0b01134f707573486561640101380180bb0000000000',
      'hex',
    );
    const other = Buffer.from(head);
    other.writeUInt32LE(0x12345678, 14);
    expect(continueEncoding(resolveOutputFormat('opus_48000_64')!, head)(other).equals(head)).toBe(true);
    for (const id of ['mp3_44100_128', 'pcm_16000', 'wav_22050', 'ulaw_8000'])
      expect(continueEncoding(resolveOutputFormat(id)!, head)(other)).toBe(other);
  });
});
