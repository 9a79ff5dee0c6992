import { listKeys, retireKey, rotateKey } from '../../admin/admin-keys';
import { cliCommand } from '../cli-command';

export const listKeysCommand = cliCommand({
  name: 'keys:list',
  summary: 'the signing keys and their status',
  flags: {},
  async run(_values, ctx) {
    return { output: { items: await listKeys(ctx) } };
  },
});

export const rotateKeyCommand = cliCommand({
  name: 'keys:rotate',
  summary: 'a new signing key: in /jwks at once, signs after KEY_ACTIVATION_DELAY',
  audit: 'signing_key.rotate',
  flags: {},
  async run(_values, ctx) {
    const rotated = await rotateKey(ctx);
    return { output: rotated, audit: { target: { type: 'signing_key', id: rotated.current }, changes: rotated } };
  },
});

export const retireKeyCommand = cliCommand({
  name: 'keys:retire',
  summary: 'the previous key leaves /jwks at once',
  audit: 'signing_key.retire',
  flags: { kid: { type: 'string', value: 'KID', required: true } },
  async run(values, ctx) {
    await retireKey(ctx, values.kid);
    return {
      output: { kid: values.kid, retired: true },
      audit: { target: { type: 'signing_key', id: values.kid }, changes: {} },
    };
  },
});
