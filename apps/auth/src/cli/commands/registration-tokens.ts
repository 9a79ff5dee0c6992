import { createInitialAccessToken, deleteInitialAccessToken } from '../../admin/admin-registration-tokens';
import { cliCommand } from '../cli-command';
import { cliActor } from '../cli-actor';

export const createRegistrationTokenCommand = cliCommand({
  name: 'registration-tokens:create',
  summary: 'an initial access token for POST /register, printed once',
  audit: 'registration_token.create',
  flags: { 'expires-in': { type: 'string', value: 'SECONDS' }, 'max-uses': { type: 'string', value: 'N' } },
  async run(values, { deps }) {
    const minted = await createInitialAccessToken(
      deps,
      {
        ...(values['expires-in'] !== undefined ? { expires_in: Number(values['expires-in']) } : {}),
        ...(values['max-uses'] !== undefined ? { max_uses: Number(values['max-uses']) } : {}),
      },
      cliActor(),
    );
    return {
      output: minted,
      audit: {
        target: { type: 'registration_token', id: minted.id },
        changes: { expires_at: minted.expires_at, max_uses: minted.max_uses },
      },
    };
  },
});

export const deleteRegistrationTokenCommand = cliCommand({
  name: 'registration-tokens:delete',
  summary: 'the token registers nothing more (clients it registered stay)',
  audit: 'registration_token.delete',
  flags: { id: { type: 'string', value: 'ID', required: true } },
  async run(values, { deps }) {
    await deleteInitialAccessToken(deps, values.id);
    return {
      output: { id: values.id, deleted: true },
      audit: { target: { type: 'registration_token', id: values.id }, changes: {} },
    };
  },
});
